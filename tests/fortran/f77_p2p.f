! f77_p2p.f — point-to-point from fixed-form Fortran with mpif.h: blocking and non-blocking
! sends, MPI_Waitany's 1-based index, probe and MPI_Get_count, MPI_STATUS_IGNORE and
! MPI_STATUSES_IGNORE, MPI_PROC_NULL, MPI_BOTTOM with absolute addresses, persistent requests.
      program f77p2p
      implicit none
      include 'mpif.h'
      integer ierr, rank, nproc, errs, i, left, right, idx, cnt
      integer buf(100), rbuf(100), reqs(4), st(MPI_STATUS_SIZE)
      integer sts(MPI_STATUS_SIZE, 4), ty, bl(1), tys(1)
      integer(kind=MPI_ADDRESS_KIND) disp(1)
      double precision d(10), rd(10)
!     buffers of non-blocking and persistent requests live in COMMON, so
!     the optimiser reloads them after every call (the mpif.h way of
!     MPI-3.1 section 17.1.17)
      common /bufs/ buf, rbuf, d, rd
      errs = 0
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
      right = mod(rank + 1, nproc)
      left = mod(rank + nproc - 1, nproc)
!     ring with blocking send / receive (even ranks send first)
      do i = 1, 100
         buf(i) = rank * 1000 + i
      end do
      if (mod(rank, 2) .eq. 0) then
         call MPI_Send(buf, 100, MPI_INTEGER, right, 1, MPI_COMM_WORLD,
     &        ierr)
         call MPI_Recv(rbuf, 100, MPI_INTEGER, left, 1, MPI_COMM_WORLD,
     &        st, ierr)
      else
         call MPI_Recv(rbuf, 100, MPI_INTEGER, left, 1, MPI_COMM_WORLD,
     &        st, ierr)
         call MPI_Send(buf, 100, MPI_INTEGER, right, 1, MPI_COMM_WORLD,
     &        ierr)
      end if
      if (st(MPI_SOURCE) .ne. left .or. st(MPI_TAG) .ne. 1) then
         errs = errs + 1
         print *, 'bad status', st(MPI_SOURCE), st(MPI_TAG)
      end if
      call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
      if (cnt .ne. 100 .or. rbuf(100) .ne. left * 1000 + 100) then
         errs = errs + 1
         print *, 'bad count or data', cnt, rbuf(100)
      end if
!     non-blocking: Waitany returns 1-based indices, then MPI_UNDEFINED
      do i = 1, 10
         d(i) = rank + i / 10.0d0
      end do
      call MPI_Irecv(rd, 10, MPI_DOUBLE_PRECISION, left, 2,
     &     MPI_COMM_WORLD, reqs(1), ierr)
      reqs(2) = MPI_REQUEST_NULL
      call MPI_Isend(d, 10, MPI_DOUBLE_PRECISION, right, 2,
     &     MPI_COMM_WORLD, reqs(3), ierr)
      reqs(4) = MPI_REQUEST_NULL
      do i = 1, 2
         call MPI_Waitany(4, reqs, idx, st, ierr)
         if (idx .ne. 1 .and. idx .ne. 3) then
            errs = errs + 1
            print *, 'bad waitany index', idx
         end if
         if (reqs(idx) .ne. MPI_REQUEST_NULL) errs = errs + 1
      end do
      call MPI_Waitany(4, reqs, idx, st, ierr)
      if (idx .ne. MPI_UNDEFINED) then
         errs = errs + 1
         print *, 'waitany on null requests gave', idx
      end if
      if (abs(rd(5) - (left + 0.5d0)) .gt. 1d-12) then
         errs = errs + 1
         print *, 'bad double data', rd(5)
      end if
!     probe then receive, statuses ignored
      call MPI_Isend(buf, 7, MPI_INTEGER, right, 3, MPI_COMM_WORLD,
     &     reqs(1), ierr)
      call MPI_Probe(left, 3, MPI_COMM_WORLD, st, ierr)
      call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
      if (cnt .ne. 7) then
         errs = errs + 1
         print *, 'probe count', cnt
      end if
      call MPI_Recv(rbuf, cnt, MPI_INTEGER, left, 3, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, ierr)
      call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)
!     MPI_PROC_NULL receive: source MPI_PROC_NULL, tag MPI_ANY_TAG
      call MPI_Recv(rbuf, 1, MPI_INTEGER, MPI_PROC_NULL, 5,
     &     MPI_COMM_WORLD, st, ierr)
      if (st(MPI_SOURCE) .ne. MPI_PROC_NULL) errs = errs + 1
!     MPI_BOTTOM with a struct type of absolute addresses
      call MPI_Get_address(buf(1), disp(1), ierr)
      bl(1) = 5
      tys(1) = MPI_INTEGER
      call MPI_Type_create_struct(1, bl, disp, tys, ty, ierr)
      call MPI_Type_commit(ty, ierr)
      call MPI_Sendrecv(MPI_BOTTOM, 1, ty, right, 4, rbuf, 5,
     &     MPI_INTEGER, left, 4, MPI_COMM_WORLD, st, ierr)
      if (rbuf(5) .ne. left * 1000 + 5) then
         errs = errs + 1
         print *, 'MPI_BOTTOM transfer', rbuf(5)
      end if
      call MPI_Type_free(ty, ierr)
      if (ty .ne. MPI_DATATYPE_NULL) errs = errs + 1
!     persistent requests, Startall + Waitall with statuses
      call MPI_Recv_init(rbuf, 3, MPI_INTEGER, left, 6,
     &     MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_Send_init(buf, 3, MPI_INTEGER, right, 6,
     &     MPI_COMM_WORLD, reqs(2), ierr)
      do i = 1, 3
         buf(1) = i
         call MPI_Startall(2, reqs, ierr)
         call MPI_Waitall(2, reqs, sts, ierr)
         if (rbuf(1) .ne. i .or. sts(MPI_TAG, 1) .ne. 6) then
            errs = errs + 1
            print *, 'persistent round', i, rbuf(1), sts(MPI_TAG, 1)
         end if
      end do
      call MPI_Request_free(reqs(1), ierr)
      call MPI_Request_free(reqs(2), ierr)
      call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         if (errs .eq. 0) then
            print *, 'No Errors'
         else
            print *, 'Found', errs, 'errors'
         end if
      end if
      call MPI_Finalize(ierr)
      end
