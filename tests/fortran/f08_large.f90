! f08_large.f90 — the MPI-4 large-count routines through `use mpi_f08`: the generics take
! counts of kind MPI_COUNT_KIND (and MPI_ADDRESS_KIND displacements) as well as default
! INTEGERs, and MPI_Type_get_extent_c, whose arguments cannot be told apart from
! MPI_Type_get_extent's by kind, has its own name; and MPI_Status_f082f / MPI_Status_f2f08.
program f08_large
  use mpi_f08
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND, ak = MPI_ADDRESS_KIND
  integer :: errs, rank, nproc, i, src, dst
  integer(kind=ck) :: n, cnt, sz, lb, ext
  integer(kind=ck), allocatable :: scounts(:), rcounts(:)
  integer(kind=ak), allocatable :: sdispls(:), rdispls(:)
  integer :: buf(10), rbuf(10), ierr
  integer, allocatable :: sa(:), ra(:)
  type(MPI_Status) :: st
  integer :: fst(MPI_STATUS_SIZE)
  type(MPI_Datatype) :: t3
  type(MPI_Request) :: req

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  dst = mod(rank + 1, nproc)
  src = mod(rank + nproc - 1, nproc)

  ! point-to-point with a large-kind count, MPI_Get_count into a large-kind count
  n = 10_ck
  buf = [(rank * 100 + i, i = 1, 10)]
  rbuf = -1
  call MPI_Irecv(rbuf, n, MPI_INTEGER, src, 5, MPI_COMM_WORLD, req)
  call MPI_Send(buf, n, MPI_INTEGER, dst, 5, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  call MPI_Wait(req, st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  if (cnt /= 10_ck) errs = errs + 1
  do i = 1, 10
    if (rbuf(i) /= src * 100 + i) errs = errs + 1
  end do
  call MPI_Get_elements(st, MPI_INTEGER, cnt)
  if (cnt /= 10_ck) errs = errs + 1
  ! MPI_Status_f082f / f2f08 keep every field
  call MPI_Status_f082f(st, fst)
  if (fst(MPI_SOURCE) /= src .or. fst(MPI_TAG) /= 5) errs = errs + 1
  fst(MPI_TAG) = 77
  call MPI_Status_f2f08(fst, st)
  if (st%MPI_TAG /= 77 .or. st%MPI_SOURCE /= src) errs = errs + 1

  ! datatypes: a large-kind contiguous type, its size and (own name) extent
  call MPI_Type_contiguous(3_ck, MPI_INTEGER, t3)
  call MPI_Type_commit(t3)
  call MPI_Type_size(t3, sz)
  if (sz /= 12_ck) errs = errs + 1
  call MPI_Type_get_extent_c(t3, lb, ext)
  if (lb /= 0_ck .or. ext /= 12_ck) errs = errs + 1
  call MPI_Sendrecv(buf, 3_ck, MPI_INTEGER, dst, 6, rbuf, 1_ck, t3, src, 6, MPI_COMM_WORLD, st)
  if (any(rbuf(1:3) /= [(src * 100 + i, i = 1, 3)])) errs = errs + 1
  call MPI_Type_free(t3)

  ! collectives: Allreduce and Bcast with large-kind counts, Alltoallv with count and
  ! displacement arrays of kinds MPI_COUNT_KIND and MPI_ADDRESS_KIND
  buf(1:2) = [rank, 1]
  call MPI_Allreduce(buf, rbuf, 2_ck, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rbuf(1) /= nproc * (nproc - 1) / 2 .or. rbuf(2) /= nproc) errs = errs + 1
  if (rank == 0) buf(1) = 4242
  call MPI_Bcast(buf, 1_ck, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (buf(1) /= 4242) errs = errs + 1
  allocate(scounts(nproc), rcounts(nproc), sdispls(nproc), rdispls(nproc))
  allocate(sa(2 * nproc), ra(2 * nproc))
  do i = 1, nproc
    scounts(i) = 2
    rcounts(i) = 2
    sdispls(i) = 2 * (i - 1)
    rdispls(i) = 2 * (i - 1)
    sa(2 * i - 1) = rank * 1000 + i
    sa(2 * i) = -(rank * 1000 + i)
  end do
  ra = 0
  call MPI_Alltoallv(sa, scounts, sdispls, MPI_INTEGER, ra, rcounts, rdispls, MPI_INTEGER, &
                     MPI_COMM_WORLD)
  do i = 1, nproc
    if (ra(2 * i - 1) /= (i - 1) * 1000 + rank + 1 .or. ra(2 * i) /= -((i - 1) * 1000 + rank + 1)) &
      errs = errs + 1
  end do

  deallocate(scounts, rcounts, sdispls, rdispls, sa, ra)

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
