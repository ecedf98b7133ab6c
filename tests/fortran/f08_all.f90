! f08_all.f90 — `use mpi_f08`: typed handles and their comparison operators, the optional
! ierror, TYPE(MPI_Status) fields, point-to-point, collectives, a derived type, one-sided
! communication (Win_create, fence, Put, Get, Accumulate) and strings.
program f08all
  use mpi_f08
  implicit none
  integer :: rank, nproc, errs, i, n, ierr, cnt
  type(MPI_Comm) :: comm
  type(MPI_Status) :: st, sts(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: ctype
  type(MPI_Win) :: win
  type(MPI_Group) :: grp
  integer :: a(10), b(10)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer :: winbuf(8)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  if (comm == MPI_COMM_WORLD .or. comm == MPI_COMM_NULL) errs = errs + 1
  call MPI_Comm_set_name(comm, 'f08 comm')
  call MPI_Comm_get_name(comm, name, n)
  if (name /= 'f08 comm' .or. n /= 8) errs = errs + 1

  ! point to point with statuses
  a = rank
  call MPI_Irecv(b, 10, MPI_INTEGER, mod(rank + nproc - 1, nproc), 9, comm, reqs(1))
  call MPI_Isend(a, 10, MPI_INTEGER, mod(rank + 1, nproc), 9, comm, reqs(2))
  call MPI_Waitall(2, reqs, sts)
  if (sts(1)%MPI_SOURCE /= mod(rank + nproc - 1, nproc) .or. sts(1)%MPI_TAG /= 9) then
    errs = errs + 1
    print *, 'status', sts(1)%MPI_SOURCE, sts(1)%MPI_TAG
  end if
  call MPI_Get_count(sts(1), MPI_INTEGER, cnt)
  if (cnt /= 10 .or. b(10) /= mod(rank + nproc - 1, nproc)) errs = errs + 1
  if (any(reqs /= MPI_REQUEST_NULL)) errs = errs + 1
  call MPI_Sendrecv(a, 2, MPI_INTEGER, rank, 1, b, 2, MPI_INTEGER, rank, 1, comm, st)
  if (st%MPI_SOURCE /= rank) errs = errs + 1

  ! collectives
  a(1) = rank + 1
  call MPI_Allreduce(a, b, 1, MPI_INTEGER, MPI_SUM, comm)
  if (b(1) /= nproc * (nproc + 1) / 2) errs = errs + 1
  call MPI_Allgather(rank, 1, MPI_INTEGER, b, 1, MPI_INTEGER, comm)
  do i = 1, nproc
    if (b(i) /= i - 1) errs = errs + 1
  end do
  call MPI_Barrier(comm)

  ! a derived type: every other integer
  call MPI_Type_vector(5, 1, 2, MPI_INTEGER, ctype)
  call MPI_Type_commit(ctype)
  a = (/ (i, i = 1, 10) /)
  b = 0
  call MPI_Sendrecv(a, 1, ctype, rank, 2, b, 5, MPI_INTEGER, rank, 2, comm, MPI_STATUS_IGNORE)
  if (b(1) /= 1 .or. b(5) /= 9) then
    errs = errs + 1
    print *, 'vector', b(1:5)
  end if
  call MPI_Type_free(ctype)
  if (ctype /= MPI_DATATYPE_NULL) errs = errs + 1

  ! one-sided
  winbuf = -1
  winsize = 8 * 4
  call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, comm, win)
  call MPI_Win_fence(0, win)
  disp = rank
  call MPI_Put(rank, 1, MPI_INTEGER, mod(rank + 1, nproc), disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  if (winbuf(mod(rank + nproc - 1, nproc) + 1) /= mod(rank + nproc - 1, nproc)) then
    errs = errs + 1
    print *, 'put', winbuf
  end if
  disp = 7
  call MPI_Accumulate(1, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win)
  call MPI_Win_fence(0, win)
  if (rank == 0 .and. winbuf(8) /= nproc - 1) then
    errs = errs + 1
    print *, 'accumulate', winbuf(8)
  end if
  disp = 7
  call MPI_Get(a, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  if (a(1) /= nproc - 1) errs = errs + 1
  call MPI_Win_get_group(win, grp)
  call MPI_Group_size(grp, n)
  if (n /= nproc) errs = errs + 1
  call MPI_Group_free(grp)
  call MPI_Win_free(win)
  if (win /= MPI_WIN_NULL) errs = errs + 1

  call MPI_Comm_free(comm)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (errs == 0) then
      print *, 'No Errors'
    else
      print *, 'Found', errs, 'errors'
    end if
  end if
  call MPI_Finalize()
end program
