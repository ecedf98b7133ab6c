! f90_comm.f90 — `use mpi`: communicators, groups, a Cartesian topology (LOGICAL periods),
! attributes with Fortran copy/delete callbacks, info keys and values (strings with trailing
! blanks), error handlers and error strings, derived datatypes and MPI_Sizeof.
module cb
  implicit none
  integer :: ncopies = 0, ndeletes = 0
contains
  subroutine copy_fn(oldcomm, keyval, extra, valin, valout, flag, ierr)
    use mpi
    integer :: oldcomm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
    logical :: flag
    ncopies = ncopies + 1
    valout = valin + extra
    flag = .true.
    ierr = MPI_SUCCESS
    if (oldcomm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID) ierr = MPI_ERR_OTHER
  end subroutine
  subroutine delete_fn(comm, keyval, val, extra, ierr)
    use mpi
    integer :: comm, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    ndeletes = ndeletes + 1
    ierr = MPI_SUCCESS
    if (comm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID .or. val < 0 .or. extra /= 5) &
      ierr = MPI_ERR_OTHER
  end subroutine
  subroutine my_errh(comm, code)
    use mpi
    integer :: comm, code
    ncopies = ncopies + 1000
    if (comm == MPI_COMM_NULL) print *, 'handler: null comm'
    if (code /= MPI_ERR_OTHER) print *, 'handler: code', code
  end subroutine
end module

program f90comm
  use mpi
  use cb
  implicit none
  integer :: ierr, rank, nproc, errs, comm2, comm3, res, key, grp, grp2, n, cart, src, dst
  integer :: ranks(2), ranks2(2), dims(2), coords(2), info, nkeys, eh, vec, sz, ecls
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, lb, extent
  logical :: flag, periods(2)
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=MPI_MAX_INFO_KEY) :: keyname
  character(len=MPI_MAX_ERROR_STRING) :: estr
  real(kind=8) :: r8
  integer(kind=2) :: i2
  complex :: cx
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)

  ! communicators
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, comm2, ierr)
  call MPI_Comm_size(comm2, n, ierr)
  if (n /= (nproc + 1 - mod(rank, 2)) / 2) errs = errs + 1
  call MPI_Comm_dup(MPI_COMM_WORLD, comm3, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, comm3, res, ierr)
  if (res /= MPI_CONGRUENT) errs = errs + 1
  call MPI_Comm_test_inter(comm3, flag, ierr)
  if (flag) errs = errs + 1

  ! groups
  call MPI_Comm_group(MPI_COMM_WORLD, grp, ierr)
  ranks = (/ nproc - 1, 0 /)
  call MPI_Group_incl(grp, 2, ranks, grp2, ierr)
  call MPI_Group_translate_ranks(grp2, 2, (/ 0, 1 /), grp, ranks2, ierr)
  if (ranks2(1) /= nproc - 1 .or. ranks2(2) /= 0) then
    errs = errs + 1
    print *, 'translate', ranks2
  end if
  call MPI_Group_free(grp2, ierr)
  call MPI_Group_free(grp, ierr)
  if (grp /= MPI_GROUP_NULL) errs = errs + 1

  ! a periodic 1 x nproc Cartesian topology
  dims = (/ 1, 0 /)
  call MPI_Dims_create(nproc, 2, dims, ierr)
  periods = (/ .false., .true. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_get(cart, 2, dims, periods, coords, ierr)
  if (periods(1) .or. .not. periods(2) .or. coords(2) /= rank) then
    errs = errs + 1
    print *, 'cart_get', periods, coords
  end if
  call MPI_Cart_shift(cart, 1, 1, src, dst, ierr)
  if (src /= mod(rank + nproc - 1, nproc) .or. dst /= mod(rank + 1, nproc)) errs = errs + 1
  call MPI_Comm_free(cart, ierr)

  ! attributes: the copy callback runs on dup, the delete callback on free
  extra = 5
  call MPI_Comm_create_keyval(copy_fn, delete_fn, key, extra, ierr)
  val = 100
  call MPI_Comm_set_attr(comm3, key, val, ierr)
  call MPI_Comm_dup(comm3, comm2, ierr)
  call MPI_Comm_get_attr(comm2, key, val, flag, ierr)
  if (.not. flag .or. val /= 105 .or. ncopies /= 1) then
    errs = errs + 1
    print *, 'attr copy', flag, val, ncopies
  end if
  call MPI_Comm_free(comm2, ierr)
  call MPI_Comm_delete_attr(comm3, key, ierr)
  if (ndeletes /= 2) then
    errs = errs + 1
    print *, 'deletes', ndeletes
  end if
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  val = 77
  call MPI_Comm_set_attr(comm3, key, val, ierr)
  call MPI_Comm_dup(comm3, comm2, ierr)
  val = 0
  call MPI_Comm_get_attr(comm2, key, val, flag, ierr)
  if (.not. flag .or. val /= 77) errs = errs + 1
  call MPI_Comm_free(comm2, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  if (.not. flag .or. val < 32767) errs = errs + 1

  ! info: keys and values are trimmed of trailing blanks
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'color   ', 'blue and green   ', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call MPI_Info_get_nthkey(info, 0, keyname, ierr)
  call MPI_Info_get(info, 'color', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (nkeys /= 1 .or. keyname /= 'color' .or. .not. flag .or. value /= 'blue and green') then
    errs = errs + 1
    print *, 'info', nkeys, trim(keyname), flag, trim(value)
  end if
  call MPI_Info_get(info, 'size', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (flag) errs = errs + 1
  call MPI_Info_free(info, ierr)

  ! errors: MPI_ERRORS_RETURN, strings, a Fortran error handler
  call MPI_Comm_set_errhandler(comm3, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(r8, 1, MPI_DOUBLE_PRECISION, nproc + 5, 0, comm3, ierr)
  call MPI_Error_class(ierr, ecls, res)
  if (ecls /= MPI_ERR_RANK) errs = errs + 1
  call MPI_Error_string(ierr, estr, n, res)
  if (n <= 0 .or. n /= len_trim(estr)) errs = errs + 1
  call MPI_Comm_create_errhandler(my_errh, eh, ierr)
  call MPI_Comm_set_errhandler(comm3, eh, ierr)
  call MPI_Comm_call_errhandler(comm3, MPI_ERR_OTHER, ierr)
  if (ncopies /= 1001) errs = errs + 1
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Comm_free(comm3, ierr)

  ! datatypes
  call MPI_Type_vector(3, 2, 4, MPI_REAL, vec, ierr)
  call MPI_Type_commit(vec, ierr)
  call MPI_Type_size(vec, sz, ierr)
  call MPI_Type_get_extent(vec, lb, extent, ierr)
  if (sz /= 24 .or. lb /= 0 .or. extent /= 40) then
    errs = errs + 1
    print *, 'vector', sz, lb, extent
  end if
  call MPI_Type_free(vec, ierr)
  call MPI_Sizeof(r8, sz, ierr)
  if (sz /= 8) errs = errs + 1
  call MPI_Sizeof(i2, sz, ierr)
  if (sz /= 2) errs = errs + 1
  call MPI_Sizeof(cx, sz, ierr)
  if (sz /= 8) errs = errs + 1
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, sz, ierr)
  if (sz /= 16) errs = errs + 1

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
