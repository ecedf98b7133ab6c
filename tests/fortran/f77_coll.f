! f77_coll.f — collectives from fixed-form Fortran with mpif.h: Bcast, Reduce, Allreduce with
! MPI_IN_PLACE, Gather(v), Scatter, Alltoall, Scan, a user reduction op written in Fortran
! (MPI_Op_create), non-blocking Ibcast/Iallreduce, and MPI_Wtime.
      subroutine myprod(invec, inoutvec, len, dtype)
      implicit none
      include 'mpif.h'
      integer len, dtype, i
      integer invec(len), inoutvec(len)
      if (dtype .ne. MPI_INTEGER) then
         print *, 'user op got datatype', dtype
         return
      end if
      do i = 1, len
         inoutvec(i) = mod(invec(i) * inoutvec(i), 1000003)
      end do
      end

      program f77coll
      implicit none
      include 'mpif.h'
      external myprod
      integer ierr, rank, nproc, errs, i, op, req, expect
      integer a(64), b(64), cnts(64), displs(64)
      double precision t0, t1
      errs = 0
      call MPI_Init(ierr)
      t0 = MPI_Wtime()
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
!     Bcast
      a(1) = -1
      if (rank .eq. 0) a(1) = 42
      call MPI_Bcast(a, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      if (a(1) .ne. 42) errs = errs + 1
!     Reduce and Allreduce in place
      a(1) = rank + 1
      call MPI_Reduce(a, b, 1, MPI_INTEGER, MPI_SUM, nproc - 1,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. nproc - 1 .and. b(1) .ne. nproc*(nproc+1)/2) then
         errs = errs + 1
         print *, 'reduce', b(1)
      end if
      a(1) = rank
      a(2) = -rank
      call MPI_Allreduce(MPI_IN_PLACE, a, 2, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, ierr)
      if (a(1) .ne. nproc - 1 .or. a(2) .ne. 0) then
         errs = errs + 1
         print *, 'allreduce in place', a(1), a(2)
      end if
!     Gather, Gatherv, Scatter, Alltoall
      a(1) = rank * 10
      call MPI_Gather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, 0,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         do i = 1, nproc
            if (b(i) .ne. (i - 1) * 10) errs = errs + 1
         end do
      end if
      do i = 1, nproc
         cnts(i) = 1
         displs(i) = nproc - i
      end do
      call MPI_Gatherv(a, 1, MPI_INTEGER, b, cnts, displs, MPI_INTEGER,
     &     0, MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         do i = 1, nproc
            if (b(nproc - i + 1) .ne. (i - 1) * 10) errs = errs + 1
         end do
      end if
      do i = 1, nproc
         a(i) = i * 3
      end do
      call MPI_Scatter(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, 0,
     &     MPI_COMM_WORLD, ierr)
      if (b(1) .ne. (rank + 1) * 3) errs = errs + 1
      do i = 1, nproc
         a(i) = rank * 100 + i
      end do
      call MPI_Alltoall(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, ierr)
      do i = 1, nproc
         if (b(i) .ne. (i - 1) * 100 + rank + 1) then
            errs = errs + 1
            print *, 'alltoall', i, b(i)
         end if
      end do
!     Scan
      a(1) = 1
      call MPI_Scan(a, b, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
      if (b(1) .ne. rank + 1) errs = errs + 1
!     a user op in Fortran
      call MPI_Op_create(myprod, .true., op, ierr)
      a(1) = rank + 2
      a(2) = 3
      call MPI_Allreduce(a, b, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
      expect = 1
      do i = 0, nproc - 1
         expect = mod(expect * (i + 2), 1000003)
      end do
      if (b(1) .ne. expect .or. b(2) .ne. 3**nproc) then
         errs = errs + 1
         print *, 'user op', b(1), expect, b(2)
      end if
      call MPI_Op_free(op, ierr)
      if (op .ne. MPI_OP_NULL) errs = errs + 1
!     non-blocking collectives
      a(1) = 0
      if (rank .eq. 1 .or. nproc .eq. 1) a(1) = 7
      call MPI_Ibcast(a, 1, MPI_INTEGER, min(1, nproc - 1),
     &     MPI_COMM_WORLD, req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      if (a(1) .ne. 7) errs = errs + 1
      a(1) = 1
      call MPI_Iallreduce(a, b, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      if (b(1) .ne. nproc) errs = errs + 1
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t1 = MPI_Wtime()
      if (t1 .lt. t0 .or. MPI_Wtick() .le. 0d0) errs = errs + 1
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
