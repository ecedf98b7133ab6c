! f08_io.f90 — MPI-IO through `use mpi_f08`: TYPE(MPI_File) handles (checked from C through
! MPI_File_f2c), MPI_DISPLACEMENT_CURRENT of kind MPI_OFFSET_KIND in MPI_File_set_view's
! generic, a file error handler declared with the abstract interface
! MPI_File_errhandler_function, and MPI_Register_datarep with conversion and extent
! procedures written in Fortran (a representation storing every INTEGER doubled).
module f08io_cb
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  integer :: handler_calls = 0, handler_code = 0
  integer :: conv_calls = 0
contains
  subroutine file_handler(fh, code)
    type(MPI_File) :: fh
    integer :: code
    handler_calls = handler_calls + 1
    handler_code = code
  end subroutine

  ! file form = 2 * memory form; position counts datatypes from the start of userbuf
  subroutine write_twice(userbuf, datatype, count, filebuf, position, extra, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer(c_int), pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    f(1:count) = 2 * u(position + 1:position + count)
    conv_calls = conv_calls + 1
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra /= 77) ierror = MPI_ERR_OTHER
  end subroutine

  subroutine read_twice(userbuf, datatype, count, filebuf, position, extra, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer(c_int), pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    u(position + 1:position + count) = f(1:count) / 2
    conv_calls = conv_calls + 1
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. extra /= 77) ierror = MPI_ERR_OTHER
  end subroutine

  subroutine extent_fn(datatype, extent, extra, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra
    integer :: ierror
    ierror = MPI_SUCCESS
    extent = 4
    if (extra /= 77) ierror = MPI_ERR_OTHER
  end subroutine
end module

program f08io
  use mpi_f08
  use f08io_cb
  implicit none
  interface
    subroutine c_check_file(fh, amode, errs) bind(C, name="c_check_file")
      import :: c_int
      integer(c_int) :: fh, amode, errs
    end subroutine
  end interface
  procedure(MPI_File_errhandler_function) :: file_handler2
  type(MPI_File) :: fh
  type(MPI_Errhandler) :: eh
  type(MPI_Status) :: st
  integer :: errs, rank, nproc, ierr, stamp, buf(4), i, amode
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=64) :: fname

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  call system_clock(stamp)
  call MPI_Bcast(stamp, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  write (fname, '(A,I0,A,I0,A)') 'sm_f08_io_', nproc, '_', mod(stamp, 1000000000), '.dat'

  ! the handle converts in C; MPI_DISPLACEMENT_CURRENT through the generic set_view
  amode = MPI_MODE_RDWR + MPI_MODE_CREATE
  call MPI_File_open(MPI_COMM_WORLD, fname, amode, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call c_check_file(fh%MPI_VAL, amode, errs)
  buf = [(100 * rank + i, i = 1, 4)]
  off = rank * 16
  call MPI_File_write_at_all(fh, off, buf, 4, MPI_INTEGER, st)
  call MPI_File_close(fh)
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY + MPI_MODE_SEQUENTIAL, &
                     MPI_INFO_NULL, fh, ierr)
  call MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER, MPI_INTEGER, "native", &
                         MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  buf = -1
  call MPI_File_read_ordered(fh, buf, 4, MPI_INTEGER, st, ierr)
  do i = 1, 4
    if (buf(i) /= 100 * rank + i) errs = errs + 1
  end do

  ! a Fortran error handler: writing to a read-only file calls it and returns its code
  call MPI_File_create_errhandler(file_handler2, eh)
  call MPI_File_set_errhandler(fh, eh)
  call MPI_File_write_shared(fh, buf, 1, MPI_INTEGER, st, ierr)
  if (ierr == MPI_SUCCESS .or. handler_calls /= 1 .or. handler_code /= ierr) then
    errs = errs + 1
    print *, 'errhandler: ierr', ierr, ' calls', handler_calls, ' code', handler_code
  end if
  call MPI_Errhandler_free(eh)
  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)

  ! a data representation with Fortran callbacks, on rank 0's own file
  if (rank == 0) then
    call MPI_Register_datarep("sm_twice", read_twice, write_twice, extent_fn, 77_MPI_ADDRESS_KIND, ierr)
    if (ierr /= MPI_SUCCESS) errs = errs + 1
    call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
    call MPI_File_set_size(fh, 0_MPI_OFFSET_KIND)
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, "sm_twice", &
                           MPI_INFO_NULL, ierr)
    if (ierr /= MPI_SUCCESS) errs = errs + 1
    buf = [1, 2, 3, 4]
    call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, buf, 4, MPI_INTEGER, st, ierr)
    if (ierr /= MPI_SUCCESS) errs = errs + 1
    ! the file holds the doubled values
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, "native", &
                           MPI_INFO_NULL, ierr)
    buf = 0
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, buf, 4, MPI_INTEGER, st, ierr)
    if (any(buf /= [2, 4, 6, 8])) then
      errs = errs + 1
      print *, 'file form ', buf
    end if
    ! and read back through the representation as written
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, "sm_twice", &
                           MPI_INFO_NULL, ierr)
    buf = 0
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, buf, 4, MPI_INTEGER, st, ierr)
    if (any(buf /= [1, 2, 3, 4]) .or. conv_calls < 2) then
      errs = errs + 1
      print *, 'memory form ', buf, ' conversions ', conv_calls
    end if
    call MPI_File_close(fh)
    call MPI_File_delete(fname, MPI_INFO_NULL)
  end if

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (errs == 0) then
      print *, ' No Errors'
    else
      print *, ' Found ', errs, ' errors'
    end if
  end if
  call MPI_Finalize()
end program

! an external procedure matching the abstract interface
subroutine file_handler2(fh, code)
  use mpi_f08
  use f08io_cb, only: file_handler
  type(MPI_File) :: fh
  integer :: code
  call file_handler(fh, code)
end subroutine
