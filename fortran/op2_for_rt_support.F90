! op2-rs: Fortran API of OP2, module OP2_Fortran_RT_Support.
!
! Run-time support used by generated Fortran loop code: the execution plan
! record (mirror of C's op_plan, 280 bytes), the plan builder, halo
! exchange / dirty-bit / reduction hooks and a few queries. On a single node
! the halo and reduction hooks do nothing beyond returning the set size.
!
! This module re-exports OP2_Fortran_Declarations (op_partition, op_is_root,
! op_mpi_rank ... live there).

module OP2_Fortran_RT_Support

  use, intrinsic :: ISO_C_BINDING
  use OP2_Fortran_Declarations

  implicit none

  integer(c_int), parameter :: F_OP_ARG_DAT = 0
  integer(c_int), parameter :: F_OP_ARG_GBL = 1

  ! struct op_plan; OP2's Fortran names: C `maps` is `in_maps`, C `loc_maps`
  ! is `maps`.
  type, bind(C) :: op_plan
    type(c_ptr) :: name
    type(c_ptr) :: set
    integer(c_int) :: nargs
    integer(c_int) :: ninds
    integer(c_int) :: ninds_staged
    integer(c_int) :: part_size
    type(c_ptr) :: in_maps
    type(c_ptr) :: dats
    type(c_ptr) :: idxs
    type(c_ptr) :: optflags
    type(c_ptr) :: accs
    type(c_ptr) :: inds_staged
    type(c_ptr) :: nthrcol
    type(c_ptr) :: thrcol
    type(c_ptr) :: col_reord
    type(c_ptr) :: col_offsets
    type(c_ptr) :: color2_offsets
    type(c_ptr) :: offset
    type(c_ptr) :: offset_d
    type(c_ptr) :: ind_map
    type(c_ptr) :: ind_maps
    type(c_ptr) :: ind_offs
    type(c_ptr) :: ind_sizes
    type(c_ptr) :: nindirect
    type(c_ptr) :: loc_map
    type(c_ptr) :: maps
    integer(c_int) :: nblocks
    type(c_ptr) :: nelems
    type(c_ptr) :: nelems_d
    integer(c_int) :: ncolors_core
    integer(c_int) :: ncolors_owned
    integer(c_int) :: ncolors
    type(c_ptr) :: ncolblk
    type(c_ptr) :: blkmap
    type(c_ptr) :: blkmap_d
    type(c_ptr) :: nsharedCol
    integer(c_int) :: nshared
    real(c_float) :: transfer
    real(c_float) :: transfer2
    integer(c_int) :: count
  end type op_plan

  interface

    function FortranPlanCaller_c(name, set, partitionSize, argsNumber, args, indsNumber, inds, staging) &
        bind(C, name='FortranPlanCaller')
      import :: c_char, c_ptr, c_int, op_arg
      character(kind=c_char), dimension(*) :: name
      type(c_ptr), value :: set
      integer(c_int), value :: partitionSize
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
      integer(c_int), value :: indsNumber
      integer(c_int), dimension(*) :: inds
      integer(c_int), value :: staging
      type(c_ptr) :: FortranPlanCaller_c
    end function FortranPlanCaller_c

    function getSetSizeFromOpArg(arg) bind(C, name='getSetSizeFromOpArg')
      import :: c_int, op_arg
      type(op_arg) :: arg
      integer(c_int) :: getSetSizeFromOpArg
    end function getSetSizeFromOpArg

    function getMapDimFromOpArg(arg) bind(C, name='getMapDimFromOpArg')
      import :: c_int, op_arg
      type(op_arg) :: arg
      integer(c_int) :: getMapDimFromOpArg
    end function getMapDimFromOpArg

    function getHybridGPU() bind(C, name='getHybridGPU')
      import :: c_int
      integer(c_int) :: getHybridGPU
    end function getHybridGPU

    subroutine op_upload_all() bind(C, name='op_upload_all')
    end subroutine op_upload_all

    function op_is_partitioned() bind(C, name='op_is_partitioned')
      import :: c_int
      integer(c_int) :: op_is_partitioned
    end function op_is_partitioned

    subroutine op_partition_ptr_c(lib, routine, set, map, coords) bind(C, name='op_partition_ptr')
      import :: c_char, c_ptr
      character(kind=c_char), dimension(*) :: lib
      character(kind=c_char), dimension(*) :: routine
      type(c_ptr), value :: set
      type(c_ptr), value :: map
      type(c_ptr), value :: coords
    end subroutine op_partition_ptr_c

    subroutine op_renumber_c(map) bind(C, name='op_renumber')
      import :: c_ptr
      type(c_ptr), value :: map
    end subroutine op_renumber_c

    subroutine op_renumber_ptr_c(map) bind(C, name='op_renumber_ptr')
      import :: c_ptr
      type(c_ptr), value :: map
    end subroutine op_renumber_ptr_c

    function op_mpi_halo_exchanges(set, argsNumber, args) bind(C, name='op_mpi_halo_exchanges')
      import :: c_ptr, c_int, op_arg
      type(c_ptr), value :: set
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
      integer(c_int) :: op_mpi_halo_exchanges
    end function op_mpi_halo_exchanges

    function op_mpi_halo_exchanges_grouped(set, argsNumber, args, device) &
        bind(C, name='op_mpi_halo_exchanges_grouped')
      import :: c_ptr, c_int, op_arg
      type(c_ptr), value :: set
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
      integer(c_int), value :: device
      integer(c_int) :: op_mpi_halo_exchanges_grouped
    end function op_mpi_halo_exchanges_grouped

    function op_mpi_halo_exchanges_cuda(set, argsNumber, args) bind(C, name='op_mpi_halo_exchanges_cuda')
      import :: c_ptr, c_int, op_arg
      type(c_ptr), value :: set
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
      integer(c_int) :: op_mpi_halo_exchanges_cuda
    end function op_mpi_halo_exchanges_cuda

    subroutine op_mpi_wait_all(argsNumber, args) bind(C, name='op_mpi_wait_all')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
    end subroutine op_mpi_wait_all

    subroutine op_mpi_wait_all_grouped(argsNumber, args, device) bind(C, name='op_mpi_wait_all_grouped')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
      integer(c_int), value :: device
    end subroutine op_mpi_wait_all_grouped

    subroutine op_mpi_wait_all_cuda(argsNumber, args) bind(C, name='op_mpi_wait_all_cuda')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
    end subroutine op_mpi_wait_all_cuda

    subroutine op_mpi_test_all(argsNumber, args) bind(C, name='op_mpi_test_all')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
    end subroutine op_mpi_test_all

    subroutine op_mpi_test_all_grouped(argsNumber, args) bind(C, name='op_mpi_test_all_grouped')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
    end subroutine op_mpi_test_all_grouped

    function op_mpi_get_test_frequency() bind(C, name='op_mpi_get_test_frequency')
      import :: c_int
      integer(c_int) :: op_mpi_get_test_frequency
    end function op_mpi_get_test_frequency

    subroutine op_mpi_set_dirtybit(argsNumber, args) bind(C, name='op_mpi_set_dirtybit')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
    end subroutine op_mpi_set_dirtybit

    subroutine op_mpi_set_dirtybit_cuda(argsNumber, args) bind(C, name='op_mpi_set_dirtybit_cuda')
      import :: c_int, op_arg
      integer(c_int), value :: argsNumber
      type(op_arg), dimension(*) :: args
    end subroutine op_mpi_set_dirtybit_cuda

    subroutine op_mpi_reduce_combined(args, argsNumber) bind(C, name='op_mpi_reduce_combined')
      import :: c_int, op_arg
      type(op_arg), dimension(*) :: args
      integer(c_int), value :: argsNumber
    end subroutine op_mpi_reduce_combined

    ! As in OP2, `data` is passed by reference: generated code passes the
    ! argument's `data` field (so C receives the address of that c_ptr);
    ! the reduction itself works on arg%data.
    subroutine op_mpi_reduce_int(arg, data) bind(C, name='op_mpi_reduce_int')
      import :: c_ptr, op_arg
      type(op_arg) :: arg
      type(c_ptr) :: data
    end subroutine op_mpi_reduce_int

    subroutine op_mpi_reduce_double(arg, data) bind(C, name='op_mpi_reduce_double')
      import :: c_ptr, op_arg
      type(op_arg) :: arg
      type(c_ptr) :: data
    end subroutine op_mpi_reduce_double

    subroutine op_mpi_reduce_float(arg, data) bind(C, name='op_mpi_reduce_float')
      import :: c_ptr, op_arg
      type(op_arg) :: arg
      type(c_ptr) :: data
    end subroutine op_mpi_reduce_float

    subroutine op_mpi_reduce_bool(arg, data) bind(C, name='op_mpi_reduce_bool')
      import :: c_ptr, op_arg
      type(op_arg) :: arg
      type(c_ptr) :: data
    end subroutine op_mpi_reduce_bool

    function op_mpi_size() bind(C, name='op_mpi_size')
      import :: c_int
      integer(c_int) :: op_mpi_size
    end function op_mpi_size

    subroutine op_barrier() bind(C, name='op_barrier')
    end subroutine op_barrier

    ! add one call's time and bytes to the timing record of kernel `id`
    subroutine setKernelTime(id, name, kernelTime, transfer, transfer2, count) bind(C, name='setKernelTime')
      import :: c_int, c_char, c_double, c_float
      integer(c_int), value :: id
      character(kind=c_char), dimension(*) :: name
      real(c_double), value :: kernelTime
      real(c_float), value :: transfer
      real(c_float), value :: transfer2
      integer(c_int), value :: count
    end subroutine setKernelTime

  end interface

contains

  ! The plan for a loop (OP2's staging codes: 0 none, 1 OP_INC, 2 all).
  function FortranPlanCaller(name, set, partitionSize, argsNumber, args, indsNumber, inds, staging) result(plan)
    character(kind=c_char), dimension(*) :: name
    type(c_ptr), value :: set
    integer(c_int), value :: partitionSize
    integer(c_int), value :: argsNumber
    type(op_arg), dimension(*) :: args
    integer(c_int), value :: indsNumber
    integer(c_int), dimension(*) :: inds
    integer(c_int), value :: staging
    type(op_plan), pointer :: plan
    call c_f_pointer(FortranPlanCaller_c(name, set, partitionSize, argsNumber, args, indsNumber, inds, staging), &
                     plan)
  end function FortranPlanCaller

  ! op_partition with the map and coordinates given as the arrays they were
  ! declared from
  subroutine op_partition2(lib_name, lib_routine, prime_set, prime_map, coords)
    character(len=*), intent(in) :: lib_name
    character(len=*), intent(in) :: lib_routine
    type(op_set), intent(in) :: prime_set
    integer(4), dimension(*), intent(in), target :: prime_map
    real(8), dimension(*), intent(in), target :: coords
    call op_partition_ptr_c(trim(lib_name) // C_NULL_CHAR, trim(lib_routine) // C_NULL_CHAR, &
                            prime_set%setCptr, c_loc(prime_map), c_loc(coords))
  end subroutine op_partition2

  subroutine op_renumber(base_map)
    type(op_map), intent(in) :: base_map
    call op_renumber_c(base_map%mapCptr)
  end subroutine op_renumber

  subroutine op_renumber_ptr(prime_map)
    integer(4), dimension(*), intent(in), target :: prime_map
    call op_renumber_ptr_c(c_loc(prime_map))
  end subroutine op_renumber_ptr

end module OP2_Fortran_RT_Support
