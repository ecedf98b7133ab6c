! f77_io.f — MPI-IO from fixed-form Fortran with mpif.h: explicit offsets of kind
! MPI_OFFSET_KIND, the individual file pointer, MPI_File_get_size, and a file view set with
! MPI_DISPLACEMENT_CURRENT (an INTEGER*8 constant: as a default INTEGER the 8-byte
! displacement argument would read garbage) on a file opened MPI_MODE_SEQUENTIAL, read with
! MPI_File_read_ordered.
      program f77io
      implicit none
      include 'mpif.h'
      integer errs, ierr, rank, nproc, fh, i, buf(8), stamp
      integer status(MPI_STATUS_SIZE)
      integer*8 off, sz
      character*32 fname

      errs = 0
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
C     a file name of this run's own (tests run side by side in one directory)
      call system_clock(stamp)
      call MPI_Bcast(stamp, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      write (fname, '(A,I0,A,I0,A)') 'sm_f77_io_', nproc, '_',
     $     mod(stamp, 1000000000), '.dat'

C     each rank writes 4 integers at offset rank*16 bytes
      call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDWR +
     $     MPI_MODE_CREATE, MPI_INFO_NULL, fh, ierr)
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      do i = 1, 4
         buf(i) = 100 * rank + i
      enddo
      off = rank * 16
      call MPI_File_write_at(fh, off, buf, 4, MPI_INTEGER, status,
     $     ierr)
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      call MPI_File_sync(fh, ierr)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call MPI_File_sync(fh, ierr)
      call MPI_File_get_size(fh, sz, ierr)
      if (sz .ne. 16 * nproc) then
         errs = errs + 1
         print *, 'size ', sz, ' expected ', 16 * nproc
      endif
C     read the next rank's block through the individual pointer
      off = mod(rank + 1, nproc) * 16
      call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
      call MPI_File_read(fh, buf, 4, MPI_INTEGER, status, ierr)
      do i = 1, 4
         if (buf(i) .ne. 100 * mod(rank + 1, nproc) + i) then
            errs = errs + 1
            print *, 'read ', buf(i)
         endif
      enddo
      call MPI_File_get_position(fh, off, ierr)
      if (off .ne. mod(rank + 1, nproc) * 16 + 16) errs = errs + 1
      call MPI_File_close(fh, ierr)

C     header then one integer per rank, in rank order
      call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_WRONLY +
     $     MPI_MODE_CREATE, MPI_INFO_NULL, fh, ierr)
      call MPI_File_set_size(fh, 0_8, ierr)
      buf(1) = nproc
      if (rank .eq. 0) then
         call MPI_File_write_shared(fh, buf, 1, MPI_INTEGER, status,
     $        ierr)
      endif
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      buf(1) = 1000 + rank
      call MPI_File_write_ordered(fh, buf, 1, MPI_INTEGER, status,
     $     ierr)
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      call MPI_File_close(fh, ierr)

      call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY +
     $     MPI_MODE_SEQUENTIAL + MPI_MODE_DELETE_ON_CLOSE,
     $     MPI_INFO_NULL, fh, ierr)
      if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      if (rank .eq. 0) then
         call MPI_File_read_shared(fh, buf, 1, MPI_INTEGER, status,
     $        ierr)
         if (buf(1) .ne. nproc) errs = errs + 1
      endif
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      call MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT,
     $     MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
      if (ierr .ne. MPI_SUCCESS) then
         errs = errs + 1
         print *, 'set_view with MPI_DISPLACEMENT_CURRENT failed'
      endif
      buf(1) = -1
      call MPI_File_read_ordered(fh, buf, 1, MPI_INTEGER, status, ierr)
      if (buf(1) .ne. 1000 + rank) then
         errs = errs + 1
         print *, rank, ' read_ordered ', buf(1)
      endif
      call MPI_File_close(fh, ierr)

      call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     $     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
         if (errs .eq. 0) then
            print *, ' No Errors'
         else
            print *, ' Found ', errs, ' errors'
         endif
      endif
      call MPI_Finalize(ierr)
      end
