! spawn_bind.f90 — the Fortran bindings of MPI_Comm_spawn and MPI_Comm_spawn_multiple (`use mpi`
! and `use mpi_f08`): CHARACTER argument vectors ended by a blank entry, argv(i, :) of command
! i, MPI_ARGV_NULL, MPI_ARGVS_NULL, MPI_ERRCODES_IGNORE, the error codes and the intercomm
! handle coming back.  spawn_bind_c.c replaces the C routines (as a profiling layer would) and
! checks what arrives, so this tests the bindings whether or not the library can spawn.
program spawn_bind
  use mpi
  implicit none
  integer :: errs, cerrs, calls, ierr, rank, info, ic, codes(3), i
  character(len=10) :: argv(3), cmds(2), margv(2, 3)
  integer :: maxprocs(2), infos(2)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'host', 'node7', ierr)

  argv(1) = '-x'
  argv(2) = 'two words'
  argv(3) = ' '
  codes = -1
  call MPI_Comm_spawn('./child   ', argv, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, codes, ierr)
  if (ierr /= MPI_SUCCESS .or. ic /= MPI_COMM_SELF .or. any(codes /= [0, 1, 2])) errs = errs + 1
  call MPI_Comm_spawn('prog', MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, ic, &
                      MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. ic /= MPI_COMM_SELF) errs = errs + 1

  cmds(1) = 'a'
  cmds(2) = 'bb'
  margv = ' '
  margv(1, 1) = 'p'
  margv(1, 2) = 'q'
  margv(2, 1) = 'r'
  maxprocs = [1, 2]
  infos = [MPI_INFO_NULL, info]
  codes = -1
  call MPI_Comm_spawn_multiple(2, cmds, margv, maxprocs, infos, 0, MPI_COMM_WORLD, ic, codes, ierr)
  if (ierr /= MPI_SUCCESS .or. ic /= MPI_COMM_SELF .or. any(codes /= [(i, i = 0, 2)])) &
    errs = errs + 1
  call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, ic, &
                               MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1

  call f08_spawn(info, errs)
  call c_spawn_result(cerrs, calls)
  if (calls /= 5) then
    errs = errs + 1
    print *, 'calls reaching C: ', calls
  end if
  errs = errs + cerrs
  call MPI_Info_free(info, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (errs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', errs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program

! the mpi_f08 generic: typed handles, no ierror
subroutine f08_spawn(finfo, errs)
  use mpi_f08
  implicit none
  integer :: finfo, errs
  type(MPI_Info) :: info
  type(MPI_Comm) :: ic
  character(len=12) :: argv(3)
  integer :: codes(3)
  info%MPI_VAL = finfo
  argv(1) = '-x'
  argv(2) = 'two words'
  argv(3) = ''
  codes = -1
  call MPI_Comm_spawn('./child', argv, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, codes)
  if (ic /= MPI_COMM_SELF .or. any(codes /= [0, 1, 2])) errs = errs + 1
end subroutine
