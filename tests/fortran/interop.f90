! interop.f90 — C and Fortran in one program: an attribute set from Fortran is read in C
! through a pointer to the value and one set in C reads in Fortran as the address (MPI's
! attribute interoperability rule); plus the Fortran string and datatype conventions the
! MPICH suite checks: info keys and values lose leading and trailing blanks, MPI_Info_get of a
! missing key leaves the value alone, MPI_Info_get_string's buflen, the MPI-1 MPI_Type_hindexed
! with INTEGER displacements, and generalized requests whose free procedure updates the
! program's extra_state.
module greq_cb
  implicit none
contains
  subroutine query_fn(extra, status, ierr)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierr
    call MPI_Status_set_elements(status, MPI_BYTE, 0, ierr)
    call MPI_Status_set_cancelled(status, .false., ierr)
    status(MPI_SOURCE) = MPI_UNDEFINED
    status(MPI_TAG) = MPI_UNDEFINED
    if (extra /= 10) ierr = MPI_ERR_OTHER
  end subroutine
  subroutine free_fn(extra, ierr)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierr
    extra = extra - 10
    ierr = MPI_SUCCESS
  end subroutine
  subroutine cancel_fn(extra, complete, ierr)
    use mpi
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierr
    ierr = MPI_SUCCESS
    if (complete .and. extra < 0) ierr = MPI_ERR_OTHER
  end subroutine
end module

program interop
  use mpi
  use greq_cb
  implicit none
  integer :: ierr, rank, errs, key, info, blen, counts(3), displs(3), ty, sz, req
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, addr
  logical :: flag
  character(len=20) :: value
  character(len=4) :: short
  integer :: buf(6), packed(6), pos
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! attributes across the languages
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  val = 5555
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, val, ierr)
  call c_check_attr(MPI_COMM_WORLD, key, 5555, errs)
  call c_set_attr(MPI_COMM_WORLD, key, addr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  if (.not. flag .or. val /= addr) then
    errs = errs + 1
    print *, 'C-set attribute read from Fortran', flag, val, addr
  end if
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_free_keyval(key, ierr)

  ! info strings
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  padded key  ', '  a value  ', ierr)
  value = 'untouched'
  call MPI_Info_get(info, 'absent', 20, value, flag, ierr)
  if (flag .or. value /= 'untouched') errs = errs + 1
  call MPI_Info_get(info, 'padded key', 20, value, flag, ierr)
  if (.not. flag .or. value /= 'a value') then
    errs = errs + 1
    print *, 'info get: "', value, '"'
  end if
  blen = 2
  short = 'xxxx'
  call MPI_Info_get_string(info, 'padded key', blen, short, flag, ierr)
  if (.not. flag .or. blen /= 7 .or. short /= 'a') then
    errs = errs + 1
    print *, 'info get_string', flag, blen, '"', short, '"'
  end if
  call MPI_Info_free(info, ierr)

  ! MPI-1 hindexed: INTEGER byte displacements
  counts = 1
  displs = (/ 20, 0, 8 /)
  call MPI_Type_hindexed(3, counts, displs, MPI_INTEGER, ty, ierr)
  call MPI_Type_commit(ty, ierr)
  call MPI_Type_size(ty, sz, ierr)
  buf = (/ 1, 2, 3, 4, 5, 6 /)
  pos = 0
  call MPI_Pack(buf, 1, ty, packed, 24, pos, MPI_COMM_WORLD, ierr)
  if (sz /= 12 .or. pos /= 12 .or. packed(1) /= 6 .or. packed(2) /= 1 .or. packed(3) /= 3) then
    errs = errs + 1
    print *, 'hindexed', sz, pos, packed(1:3)
  end if
  call MPI_Type_free(ty, ierr)

  ! a generalized request: the free procedure sees the program's extra_state
  extra = 10
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra, req, ierr)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (extra /= 0 .or. req /= MPI_REQUEST_NULL) then
    errs = errs + 1
    print *, 'grequest', extra
  end if

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (errs == 0) then
      print *, 'No Errors'
    else
      print *, 'Found', errs, 'errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program
