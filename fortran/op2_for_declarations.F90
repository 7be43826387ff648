! op2-rs: Fortran API of OP2, module OP2_Fortran_Declarations.
!
! Derived types that mirror the C structs of op2-rs (include/op2_rs_generated.h,
! OP2 HEAD layout), OP2's Fortran access codes, and the declaration/argument
! procedures, all implemented on top of the C entry points of libop2_*.
! Compile this file with the application's own Fortran compiler: .mod files
! are compiler specific.
!
! Conventions of the Fortran API (the same as OP2's):
!   * access codes are 1-based (OP_READ = 1 ... OP_WORK = 7); C gets acc-1;
!   * map column indices in op_arg_dat/op_arg_idx are 1-based; -1 means direct
!     access (through OP_ID); values below -1 are passed on unchanged (C's
!     "all columns" vector arguments);
!   * op_arg_info's `ref` and op_fetch_data_idx's `low`/`high` are 1-based;
!   * maps passed to op_decl_map are 1-based after op_init (set_maps_base(1)),
!     0-based after op_init_base(diags, 0);
!   * kernels are plain Fortran subroutines; the library calls them with one
!     address per argument (see OP2_Fortran_Reference).
!
! The repetitive type/rank variants between the "generated" markers are
! written by gen_declarations.py; edit that script, not those lines.

module OP2_Fortran_Declarations

  use, intrinsic :: ISO_C_BINDING
  use, intrinsic :: ISO_FORTRAN_ENV, only: op2_error_unit => error_unit

  implicit none

  integer, parameter :: MAX_NAME_LEN = 100
  integer, parameter :: BSIZE_DEFAULT = 256

  ! kinds of local and global element indices
  integer, parameter :: idx_l_t = C_INT
  integer, parameter :: idx_g_t = C_LONG_LONG

  ! access codes (variables, not parameters, as in OP2)
  integer(c_int) :: OP_READ = 1
  integer(c_int) :: OP_WRITE = 2
  integer(c_int) :: OP_RW = 3
  integer(c_int) :: OP_INC = 4
  integer(c_int) :: OP_MIN = 5
  integer(c_int) :: OP_MAX = 6
  integer(c_int) :: OP_WORK = 7

  ! --------------------------------------------------------------------
  ! C structs (field order and types must match include/op2_rs_generated.h)
  ! --------------------------------------------------------------------

  ! struct op_set_core: 32 bytes
  type, bind(C) :: op_set_core
    integer(c_int) :: index
    integer(idx_l_t) :: size
    type(c_ptr) :: name
    integer(idx_l_t) :: core_size
    integer(idx_l_t) :: exec_size
    integer(idx_l_t) :: nonexec_size
    integer(c_int) :: stride
  end type op_set_core

  ! struct op_map_core: 72 bytes
  type, bind(C) :: op_map_core
    integer(c_int) :: index
    type(c_ptr) :: from
    type(c_ptr) :: to
    integer(c_int) :: dim
    type(c_ptr) :: map
    type(c_ptr) :: map_gbl
    type(c_ptr) :: map_d
    type(c_ptr) :: name
    integer(c_int) :: user_managed
    logical(c_bool) :: force_part
  end type op_map_core

  ! struct op_dat_core: 96 bytes (all 14 fields, including buffer_d_r)
  type, bind(C) :: op_dat_core
    integer(c_int) :: index
    type(c_ptr) :: set
    integer(c_int) :: dim
    integer(c_int) :: size
    type(c_ptr) :: dat
    type(c_ptr) :: dat_d
    type(c_ptr) :: type
    type(c_ptr) :: name
    type(c_ptr) :: buffer_d
    type(c_ptr) :: buffer_d_r
    integer(c_int) :: dirtybit
    integer(c_int) :: dirty_hd
    integer(c_int) :: user_managed
    type(c_ptr) :: mpi_buffer
  end type op_dat_core

  ! struct op_arg: 96 bytes, passed by value from C, by reference to C
  type, bind(C) :: op_arg
    integer(c_int) :: index
    type(c_ptr) :: dat
    type(c_ptr) :: map
    integer(c_int) :: dim
    integer(c_int) :: idx
    integer(c_int) :: size
    type(c_ptr) :: data
    type(c_ptr) :: data_d
    type(c_ptr) :: map_data
    type(c_ptr) :: map_data_d
    type(c_ptr) :: type
    integer(c_int) :: acc
    integer(c_int) :: argtype
    integer(c_int) :: sent
    integer(c_int) :: opt
  end type op_arg

  ! --------------------------------------------------------------------
  ! Fortran handles: the C handle plus a Fortran view of the C struct
  ! --------------------------------------------------------------------

  type :: op_set
    type(op_set_core), pointer :: setPtr => null()
    type(c_ptr) :: setCptr = C_NULL_PTR
  end type op_set

  type :: op_map
    type(op_map_core), pointer :: mapPtr => null()
    type(c_ptr) :: mapCptr = C_NULL_PTR
    integer(c_int) :: status = -1
  end type op_map

  type :: op_dat
    type(op_dat_core), pointer :: dataPtr => null()
    type(c_ptr) :: dataCptr = C_NULL_PTR
    integer(c_int) :: status = -1
  end type op_dat

  ! Identity and global "maps". Both are passed to C as NULL. After op_init
  ! they point at Fortran-owned records with dim 0 (OP_ID) and -1 (OP_GBL),
  ! as in OP2; before op_init they are null handles, treated the same way.
  type(op_map) :: OP_ID
  type(op_map) :: OP_GBL
  type(op_map_core), target, save, private :: op_id_record
  type(op_map_core), target, save, private :: op_gbl_record

  ! --------------------------------------------------------------------
  ! C entry points
  ! --------------------------------------------------------------------

  interface

    subroutine op_init_soa_c(argc, argv, diags, soa) bind(C, name='op_init_soa')
      import :: c_int, c_ptr
      integer(c_int), value :: argc
      type(c_ptr), value :: argv
      integer(c_int), value :: diags
      integer(c_int), value :: soa
    end subroutine op_init_soa_c

    subroutine op_mpi_init_soa_c(argc, argv, diags, global, local, soa) bind(C, name='op_mpi_init_soa')
      import :: c_int, c_ptr
      integer(c_int), value :: argc
      type(c_ptr), value :: argv
      integer(c_int), value :: diags
      integer(c_int), value :: global
      integer(c_int), value :: local
      integer(c_int), value :: soa
    end subroutine op_mpi_init_soa_c

    subroutine op_set_args_c(argc, arg) bind(C, name='op_set_args')
      import :: c_int, c_char
      integer(c_int), value :: argc
      character(kind=c_char), dimension(*) :: arg
    end subroutine op_set_args_c

    subroutine set_maps_base_c(base) bind(C, name='set_maps_base')
      import :: c_int
      integer(c_int), value :: base
    end subroutine set_maps_base_c

    subroutine op_exit_c() bind(C, name='op_exit')
    end subroutine op_exit_c

    function op_decl_set_c(setsize, name) bind(C, name='op_decl_set')
      import :: c_ptr, c_char, idx_l_t
      integer(idx_l_t), value :: setsize
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: op_decl_set_c
    end function op_decl_set_c

    function op_decl_map_c(from, to, mapdim, imap, name) bind(C, name='op_decl_map')
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: from
      type(c_ptr), value :: to
      integer(c_int), value :: mapdim
      type(c_ptr), value :: imap
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: op_decl_map_c
    end function op_decl_map_c

    function op_decl_map_long_c(from, to, mapdim, imap, name) bind(C, name='op_decl_map_long')
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: from
      type(c_ptr), value :: to
      integer(c_int), value :: mapdim
      type(c_ptr), value :: imap
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: op_decl_map_long_c
    end function op_decl_map_long_c

    function op_decl_dat_c(set, datdim, type, typesize, data, name) bind(C, name='op_decl_dat_char')
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: set
      integer(c_int), value :: datdim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: typesize
      type(c_ptr), value :: data
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: op_decl_dat_c
    end function op_decl_dat_c

    function op_decl_dat_temp_c(set, datdim, type, typesize, name) bind(C, name='op_decl_dat_temp_char')
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: set
      integer(c_int), value :: datdim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: typesize
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: op_decl_dat_temp_c
    end function op_decl_dat_temp_c

    subroutine op_decl_const_c(dim, type, typesize, data, name) bind(C, name='op_decl_const_char')
      import :: c_ptr, c_int, c_char
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: typesize
      type(c_ptr), value :: data
      character(kind=c_char), dimension(*) :: name
    end subroutine op_decl_const_c

    function op_free_dat_temp_c(dat) bind(C, name='op_free_dat_temp_char')
      import :: c_ptr, c_int
      type(c_ptr), value :: dat
      integer(c_int) :: op_free_dat_temp_c
    end function op_free_dat_temp_c

    function op_arg_dat_c(dat, idx, map, dim, type, acc) bind(C, name='op_arg_dat')
      import :: c_ptr, c_int, c_char, op_arg
      type(c_ptr), value :: dat
      integer(c_int), value :: idx
      type(c_ptr), value :: map
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: acc
      type(op_arg) :: op_arg_dat_c
    end function op_arg_dat_c

    function op_opt_arg_dat_c(opt, dat, idx, map, dim, type, acc) bind(C, name='op_opt_arg_dat')
      import :: c_ptr, c_int, c_char, op_arg
      integer(c_int), value :: opt
      type(c_ptr), value :: dat
      integer(c_int), value :: idx
      type(c_ptr), value :: map
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: acc
      type(op_arg) :: op_opt_arg_dat_c
    end function op_opt_arg_dat_c

    function op_arg_dat_ptr_c(opt, dat, idx, map, dim, type, acc) bind(C, name='op_arg_dat_ptr')
      import :: c_ptr, c_int, c_char, op_arg
      integer(c_int), value :: opt
      type(c_ptr), value :: dat
      integer(c_int), value :: idx
      type(c_ptr), value :: map
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: acc
      type(op_arg) :: op_arg_dat_ptr_c
    end function op_arg_dat_ptr_c

    function op_arg_gbl_c(data, dim, type, typesize, acc) bind(C, name='op_arg_gbl_copy')
      import :: c_ptr, c_int, c_char, op_arg
      type(c_ptr), value :: data
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: typesize
      integer(c_int), value :: acc
      type(op_arg) :: op_arg_gbl_c
    end function op_arg_gbl_c

    function op_opt_arg_gbl_c(opt, data, dim, type, typesize, acc) bind(C, name='op_opt_arg_gbl_copy')
      import :: c_ptr, c_int, c_char, op_arg
      integer(c_int), value :: opt
      type(c_ptr), value :: data
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: typesize
      integer(c_int), value :: acc
      type(op_arg) :: op_opt_arg_gbl_c
    end function op_opt_arg_gbl_c

    function op_arg_info_c(data, dim, type, typesize, ref) bind(C, name='op_arg_info_copy')
      import :: c_ptr, c_int, c_char, op_arg
      type(c_ptr), value :: data
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*) :: type
      integer(c_int), value :: typesize
      integer(c_int), value :: ref
      type(op_arg) :: op_arg_info_c
    end function op_arg_info_c

    function op_arg_idx_c(idx, map) bind(C, name='op_arg_idx')
      import :: c_ptr, c_int, op_arg
      integer(c_int), value :: idx
      type(c_ptr), value :: map
      type(op_arg) :: op_arg_idx_c
    end function op_arg_idx_c

    function op_arg_idx_ptr_c(idx, map) bind(C, name='op_arg_idx_ptr')
      import :: c_ptr, c_int, op_arg
      integer(c_int), value :: idx
      type(c_ptr), value :: map
      type(op_arg) :: op_arg_idx_ptr_c
    end function op_arg_idx_ptr_c

    subroutine print_type(arg) bind(C, name='print_type')
      import :: op_arg
      type(op_arg) :: arg
    end subroutine print_type

    function op_get_size_c(set) bind(C, name='op_get_size')
      import :: c_ptr, idx_g_t
      type(c_ptr), value :: set
      integer(idx_g_t) :: op_get_size_c
    end function op_get_size_c

    function op_get_global_set_offset_c(set) bind(C, name='op_get_global_set_offset')
      import :: c_ptr, idx_g_t
      type(c_ptr), value :: set
      integer(idx_g_t) :: op_get_global_set_offset_c
    end function op_get_global_set_offset_c

    function op_get_size_local_c(set) bind(C, name='op_get_size_local')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: op_get_size_local_c
    end function op_get_size_local_c

    function op_get_size_local_core_c(set) bind(C, name='op_get_size_local_core')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: op_get_size_local_core_c
    end function op_get_size_local_core_c

    function op_get_size_local_exec_c(set) bind(C, name='op_get_size_local_exec')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: op_get_size_local_exec_c
    end function op_get_size_local_exec_c

    function op_get_size_local_full_c(set) bind(C, name='op_get_size_local_full')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: op_get_size_local_full_c
    end function op_get_size_local_full_c

    function get_set_size_c(set) bind(C, name='get_set_size')
      import :: c_ptr, c_int
      type(c_ptr), value :: set
      integer(c_int) :: get_set_size_c
    end function get_set_size_c

    function get_associated_set_size_c(dat) bind(C, name='get_associated_set_size')
      import :: c_ptr, c_int
      type(c_ptr), value :: dat
      integer(c_int) :: get_associated_set_size_c
    end function get_associated_set_size_c

    subroutine op_fetch_data_c(dat, dst) bind(C, name='op_fetch_data_char')
      import :: c_ptr
      type(c_ptr), value :: dat
      type(c_ptr), value :: dst
    end subroutine op_fetch_data_c

    subroutine op_fetch_data_idx_c(dat, dst, low, high) bind(C, name='op_fetch_data_idx_char')
      import :: c_ptr, c_int
      type(c_ptr), value :: dat
      type(c_ptr), value :: dst
      integer(c_int), value :: low
      integer(c_int), value :: high
    end subroutine op_fetch_data_idx_c

    subroutine op_print_dat_to_binfile_c(dat, file) bind(C, name='op_print_dat_to_binfile')
      import :: c_ptr, c_char
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*) :: file
    end subroutine op_print_dat_to_binfile_c

    subroutine op_print_dat_to_txtfile_c(dat, file) bind(C, name='op_print_dat_to_txtfile')
      import :: c_ptr, c_char
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*) :: file
    end subroutine op_print_dat_to_txtfile_c

    subroutine op_timers_c(cpu, et) bind(C, name='op_timers')
      import :: c_double
      real(c_double) :: cpu
      real(c_double) :: et
    end subroutine op_timers_c

    subroutine op_timers_core_c(cpu, et) bind(C, name='op_timers_core')
      import :: c_double
      real(c_double) :: cpu
      real(c_double) :: et
    end subroutine op_timers_core_c

    subroutine op_timing_output() bind(C, name='op_timing_output')
    end subroutine op_timing_output

    subroutine op_diagnostic_output() bind(C, name='op_diagnostic_output')
    end subroutine op_diagnostic_output

    subroutine op_print_c(line) bind(C, name='op_print')
      import :: c_char
      character(kind=c_char), dimension(*) :: line
    end subroutine op_print_c

    function op_is_root() bind(C, name='op_is_root')
      import :: c_int
      integer(c_int) :: op_is_root
    end function op_is_root

    subroutine op_partition_c(lib, routine, set, map, coords) bind(C, name='op_partition')
      import :: c_ptr, c_char
      character(kind=c_char), dimension(*) :: lib
      character(kind=c_char), dimension(*) :: routine
      type(c_ptr), value :: set
      type(c_ptr), value :: map
      type(c_ptr), value :: coords
    end subroutine op_partition_c

    subroutine op_mpi_rank_c(rank) bind(C, name='op_mpi_rank')
      import :: c_int
      integer(c_int) :: rank
    end subroutine op_mpi_rank_c

    function isCNullPointer_c(ptr) bind(C, name='isCNullPointer')
      import :: c_ptr, c_bool
      type(c_ptr), value :: ptr
      logical(c_bool) :: isCNullPointer_c
    end function isCNullPointer_c

    ! op_memalloc(ptr, bytes): ptr receives the address of a 64-byte aligned
    ! block (for Cray pointers / integer(8) addresses)
    subroutine op_memalloc(ptr, bytes) bind(C, name='op_malloc2')
      import :: c_int, c_long_long
      integer(c_long_long) :: ptr
      integer(c_int) :: bytes
    end subroutine op_memalloc

    subroutine op_profile_start_c(name) bind(C, name='op_profile_start')
      import :: c_char
      character(kind=c_char), dimension(*) :: name
    end subroutine op_profile_start_c

    subroutine op_profile_enter_c(name) bind(C, name='op_profile_enter')
      import :: c_char
      character(kind=c_char), dimension(*) :: name
    end subroutine op_profile_enter_c

    subroutine op_profile_enter_kernel_c(name, target, variant) bind(C, name='op_profile_enter_kernel')
      import :: c_char
      character(kind=c_char), dimension(*) :: name
      character(kind=c_char), dimension(*) :: target
      character(kind=c_char), dimension(*) :: variant
    end subroutine op_profile_enter_kernel_c

    subroutine op_profile_next_c(name) bind(C, name='op_profile_next')
      import :: c_char
      character(kind=c_char), dimension(*) :: name
    end subroutine op_profile_next_c

    subroutine op_profile_exit() bind(C, name='op_profile_exit')
    end subroutine op_profile_exit

    subroutine op_profile_end() bind(C, name='op_profile_end')
    end subroutine op_profile_end

    subroutine op_profile_output() bind(C, name='op_profile_output')
    end subroutine op_profile_output

    subroutine op_profile_output_json_c(file) bind(C, name='op_profile_output_json')
      import :: c_char
      character(kind=c_char), dimension(*) :: file
    end subroutine op_profile_output_json_c

    ! ---- reaching library-held data (OP2's names; capi/src/fortran_data.rs)

    function op_decl_dat_overlay_ptr_c(set, dat) bind(C, name='op_decl_dat_overlay_ptr')
      import :: c_ptr
      type(c_ptr), value :: set
      type(c_ptr), value :: dat
      type(c_ptr) :: op_decl_dat_overlay_ptr_c
    end function op_decl_dat_overlay_ptr_c

    function op_get_data_ptr_c(dat) bind(C, name='op_get_data_ptr')
      import :: c_ptr, c_long_long
      type(c_ptr), value :: dat
      integer(c_long_long) :: op_get_data_ptr_c
    end function op_get_data_ptr_c

    function op_get_data_ptr_int_c(key) bind(C, name='op_get_data_ptr2')
      import :: c_long_long
      integer(c_long_long), value :: key
      integer(c_long_long) :: op_get_data_ptr_int_c
    end function op_get_data_ptr_int_c

    function op_reset_data_ptr_c(data, mode) bind(C, name='op_reset_data_ptr')
      import :: c_ptr, c_int, c_long_long
      type(c_ptr), value :: data
      integer(c_int), value :: mode
      integer(c_long_long) :: op_reset_data_ptr_c
    end function op_reset_data_ptr_c

    function op_get_map_ptr_c(map) bind(C, name='op_get_map_ptr')
      import :: c_ptr, c_long_long
      type(c_ptr), value :: map
      integer(c_long_long) :: op_get_map_ptr_c
    end function op_get_map_ptr_c

    function op_reset_map_ptr_c(map) bind(C, name='op_reset_map_ptr')
      import :: c_ptr, c_long_long
      type(c_ptr), value :: map
      integer(c_long_long) :: op_reset_map_ptr_c
    end function op_reset_map_ptr_c

    function op_copy_map_to_fort_c(map) bind(C, name='op_copy_map_to_fort')
      import :: c_ptr, c_long_long
      type(c_ptr), value :: map
      integer(c_long_long) :: op_copy_map_to_fort_c
    end function op_copy_map_to_fort_c

    subroutine op_force_part_c(map) bind(C, name='op_force_part')
      import :: c_ptr
      type(c_ptr), value :: map
    end subroutine op_force_part_c

    subroutine op_register_set_c(idx, set) bind(C, name='op_register_set')
      import :: c_ptr, c_int
      integer(c_int), value :: idx
      type(c_ptr), value :: set
    end subroutine op_register_set_c

    function op_get_set_c(idx) bind(C, name='op_get_set')
      import :: c_ptr, c_int
      integer(c_int), value :: idx
      type(c_ptr) :: op_get_set_c
    end function op_get_set_c

    function op_get_g_index_c(set) bind(C, name='op_get_g_index')
      import :: c_ptr, c_long_long
      type(c_ptr), value :: set
      integer(c_long_long) :: op_get_g_index_c
    end function op_get_g_index_c

    function op_mpi_get_data_c(dat) bind(C, name='op_mpi_get_data')
      import :: c_ptr
      type(c_ptr), value :: dat
      type(c_ptr) :: op_mpi_get_data_c
    end function op_mpi_get_data_c

    subroutine op_mpi_free_data_c(dat) bind(C, name='op_mpi_free_data')
      import :: c_ptr
      type(c_ptr), value :: dat
    end subroutine op_mpi_free_data_c

    subroutine op_get_dat_mpi_c(dat) bind(C, name='op_get_dat_mpi')
      import :: c_ptr
      type(c_ptr), value :: dat
    end subroutine op_get_dat_mpi_c

    subroutine op_put_dat_mpi_c(dat) bind(C, name='op_put_dat_mpi')
      import :: c_ptr
      type(c_ptr), value :: dat
    end subroutine op_put_dat_mpi_c

    subroutine op_dat_write_index_c(set, dat) bind(C, name='op_dat_write_index')
      import :: c_ptr
      type(c_ptr), value :: set
      type(c_ptr), value :: dat
    end subroutine op_dat_write_index_c

    subroutine op_print_dat_to_txtfile2_c(dat, file) bind(C, name='op_print_dat_to_txtfile2')
      import :: c_ptr, c_char
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*) :: file
    end subroutine op_print_dat_to_txtfile2_c

    subroutine op_disable_mpi_reductions_c(disable) bind(C, name='op_disable_mpi_reductions')
      import :: c_bool
      logical(c_bool), value :: disable
    end subroutine op_disable_mpi_reductions_c
    ! fallback wrappers of translator-v2's code (OP_WHITELIST, OP_FALLBACK_MODE)
    function op_check_whitelist_c(name) bind(C, name='op_check_whitelist')
      import :: c_char, c_bool
      character(kind=c_char), dimension(*) :: name
      logical(c_bool) :: op_check_whitelist_c
    end function op_check_whitelist_c

    subroutine op_check_fallback_mode_c(name) bind(C, name='op_check_fallback_mode')
      import :: c_char
      character(kind=c_char), dimension(*) :: name
    end subroutine op_check_fallback_mode_c

    subroutine op_disable_device_execution_c(disable) bind(C, name='op_disable_device_execution')
      import :: c_bool
      logical(c_bool), value :: disable
    end subroutine op_disable_device_execution_c

  end interface

  ! --------------------------------------------------------------------
  ! Generic names
  ! --------------------------------------------------------------------

  interface op_arg_idx
    module procedure op_arg_idx_map, op_arg_idx_array1, op_arg_idx_array2
  end interface op_arg_idx

  interface get_set_size
    module procedure get_set_size_handle, get_set_size_record
  end interface get_set_size

  interface op_get_data_ptr
    module procedure op_get_data_ptr_int, op_get_data_ptr_dat
  end interface op_get_data_ptr

  interface op_print_dat_to_txtfile2
    module procedure op_print_dat_to_txtfile2_real_8, op_print_dat_to_txtfile2_integer_4
  end interface op_print_dat_to_txtfile2

  interface get_associated_set_size
    module procedure get_associated_set_size_handle, get_associated_set_size_record
  end interface get_associated_set_size

!GENERATED-BEGIN interfaces
  interface op_decl_dat
    module procedure op_decl_dat_i4_1, &
                     op_decl_dat_i4_2, &
                     op_decl_dat_i4_3, &
                     op_decl_dat_r4_1, &
                     op_decl_dat_r4_2, &
                     op_decl_dat_r4_3, &
                     op_decl_dat_r8_1, &
                     op_decl_dat_r8_2, &
                     op_decl_dat_r8_3
  end interface op_decl_dat

  interface op_decl_const
    module procedure op_decl_const_i4_0, &
                     op_decl_const_i4_1, &
                     op_decl_const_i4_2, &
                     op_decl_const_i8_0, &
                     op_decl_const_i8_1, &
                     op_decl_const_i8_2, &
                     op_decl_const_r4_0, &
                     op_decl_const_r4_1, &
                     op_decl_const_r4_2, &
                     op_decl_const_r8_0, &
                     op_decl_const_r8_1, &
                     op_decl_const_r8_2, &
                     op_decl_const_l_0, &
                     op_decl_const_string
  end interface op_decl_const

  interface op_arg_dat
    module procedure op_arg_dat_python, &
                     op_arg_dat_i4_1_m1, &
                     op_arg_dat_i4_1_m2, &
                     op_arg_dat_i4_1_mh, &
                     op_arg_dat_i4_2_m1, &
                     op_arg_dat_i4_2_m2, &
                     op_arg_dat_i4_2_mh, &
                     op_arg_dat_i4_3_m1, &
                     op_arg_dat_i4_3_m2, &
                     op_arg_dat_i4_3_mh, &
                     op_arg_dat_r4_1_m1, &
                     op_arg_dat_r4_1_m2, &
                     op_arg_dat_r4_1_mh, &
                     op_arg_dat_r4_2_m1, &
                     op_arg_dat_r4_2_m2, &
                     op_arg_dat_r4_2_mh, &
                     op_arg_dat_r4_3_m1, &
                     op_arg_dat_r4_3_m2, &
                     op_arg_dat_r4_3_mh, &
                     op_arg_dat_r8_1_m1, &
                     op_arg_dat_r8_1_m2, &
                     op_arg_dat_r8_1_mh, &
                     op_arg_dat_r8_2_m1, &
                     op_arg_dat_r8_2_m2, &
                     op_arg_dat_r8_2_mh, &
                     op_arg_dat_r8_3_m1, &
                     op_arg_dat_r8_3_m2, &
                     op_arg_dat_r8_3_mh
  end interface op_arg_dat

  interface op_opt_arg_dat
    module procedure op_opt_arg_dat_python, &
                     op_opt_arg_dat_i4_1_m1, &
                     op_opt_arg_dat_i4_1_m2, &
                     op_opt_arg_dat_i4_1_mh, &
                     op_opt_arg_dat_i4_2_m1, &
                     op_opt_arg_dat_i4_2_m2, &
                     op_opt_arg_dat_i4_2_mh, &
                     op_opt_arg_dat_i4_3_m1, &
                     op_opt_arg_dat_i4_3_m2, &
                     op_opt_arg_dat_i4_3_mh, &
                     op_opt_arg_dat_r4_1_m1, &
                     op_opt_arg_dat_r4_1_m2, &
                     op_opt_arg_dat_r4_1_mh, &
                     op_opt_arg_dat_r4_2_m1, &
                     op_opt_arg_dat_r4_2_m2, &
                     op_opt_arg_dat_r4_2_mh, &
                     op_opt_arg_dat_r4_3_m1, &
                     op_opt_arg_dat_r4_3_m2, &
                     op_opt_arg_dat_r4_3_mh, &
                     op_opt_arg_dat_r8_1_m1, &
                     op_opt_arg_dat_r8_1_m2, &
                     op_opt_arg_dat_r8_1_mh, &
                     op_opt_arg_dat_r8_2_m1, &
                     op_opt_arg_dat_r8_2_m2, &
                     op_opt_arg_dat_r8_2_mh, &
                     op_opt_arg_dat_r8_3_m1, &
                     op_opt_arg_dat_r8_3_m2, &
                     op_opt_arg_dat_r8_3_mh
  end interface op_opt_arg_dat

  interface op_arg_gbl
    module procedure op_arg_gbl_i4_0, &
                     op_arg_gbl_i4_1, &
                     op_arg_gbl_i4_2, &
                     op_arg_gbl_i4_3, &
                     op_arg_gbl_i4_4, &
                     op_arg_gbl_r4_0, &
                     op_arg_gbl_r4_1, &
                     op_arg_gbl_r4_2, &
                     op_arg_gbl_r4_3, &
                     op_arg_gbl_r4_4, &
                     op_arg_gbl_r8_0, &
                     op_arg_gbl_r8_1, &
                     op_arg_gbl_r8_2, &
                     op_arg_gbl_r8_3, &
                     op_arg_gbl_r8_4, &
                     op_arg_gbl_l_0, &
                     op_arg_gbl_l_1, &
                     op_arg_gbl_l_2, &
                     op_arg_gbl_l_3, &
                     op_arg_gbl_l_4
  end interface op_arg_gbl

  interface op_opt_arg_gbl
    module procedure op_opt_arg_gbl_i4_0, &
                     op_opt_arg_gbl_i4_1, &
                     op_opt_arg_gbl_i4_2, &
                     op_opt_arg_gbl_i4_3, &
                     op_opt_arg_gbl_i4_4, &
                     op_opt_arg_gbl_r4_0, &
                     op_opt_arg_gbl_r4_1, &
                     op_opt_arg_gbl_r4_2, &
                     op_opt_arg_gbl_r4_3, &
                     op_opt_arg_gbl_r4_4, &
                     op_opt_arg_gbl_r8_0, &
                     op_opt_arg_gbl_r8_1, &
                     op_opt_arg_gbl_r8_2, &
                     op_opt_arg_gbl_r8_3, &
                     op_opt_arg_gbl_r8_4, &
                     op_opt_arg_gbl_l_0, &
                     op_opt_arg_gbl_l_1, &
                     op_opt_arg_gbl_l_2, &
                     op_opt_arg_gbl_l_3, &
                     op_opt_arg_gbl_l_4
  end interface op_opt_arg_gbl

  interface op_arg_info
    module procedure op_arg_info_i4_0, &
                     op_arg_info_i4_1, &
                     op_arg_info_i4_2, &
                     op_arg_info_r4_0, &
                     op_arg_info_r4_1, &
                     op_arg_info_r4_2, &
                     op_arg_info_r8_0, &
                     op_arg_info_r8_1, &
                     op_arg_info_r8_2, &
                     op_arg_info_l_0, &
                     op_arg_info_l_1, &
                     op_arg_info_l_2
  end interface op_arg_info

  interface op_fetch_data
    module procedure op_fetch_data_i4_1, &
                     op_fetch_data_i4_2, &
                     op_fetch_data_i4_3, &
                     op_fetch_data_r4_1, &
                     op_fetch_data_r4_2, &
                     op_fetch_data_r4_3, &
                     op_fetch_data_r8_1, &
                     op_fetch_data_r8_2, &
                     op_fetch_data_r8_3
  end interface op_fetch_data

  interface op_fetch_data_idx
    module procedure op_fetch_data_idx_i4_1, &
                     op_fetch_data_idx_i4_2, &
                     op_fetch_data_idx_i4_3, &
                     op_fetch_data_idx_r4_1, &
                     op_fetch_data_idx_r4_2, &
                     op_fetch_data_idx_r4_3, &
                     op_fetch_data_idx_r8_1, &
                     op_fetch_data_idx_r8_2, &
                     op_fetch_data_idx_r8_3
  end interface op_fetch_data_idx

  interface op_decl_dat_overlay
    module procedure op_decl_dat_overlay_i4_1, &
                     op_decl_dat_overlay_i4_2, &
                     op_decl_dat_overlay_i4_3, &
                     op_decl_dat_overlay_r4_1, &
                     op_decl_dat_overlay_r4_2, &
                     op_decl_dat_overlay_r4_3, &
                     op_decl_dat_overlay_r8_1, &
                     op_decl_dat_overlay_r8_2, &
                     op_decl_dat_overlay_r8_3
  end interface op_decl_dat_overlay

  interface op_reset_data_ptr
    module procedure op_reset_data_ptr_i4_1, &
                     op_reset_data_ptr_i4_2, &
                     op_reset_data_ptr_i4_3, &
                     op_reset_data_ptr_r4_1, &
                     op_reset_data_ptr_r4_2, &
                     op_reset_data_ptr_r4_3, &
                     op_reset_data_ptr_r8_1, &
                     op_reset_data_ptr_r8_2, &
                     op_reset_data_ptr_r8_3
  end interface op_reset_data_ptr
!GENERATED-END interfaces

contains

  ! --------------------------------------------------------------------
  ! Helpers
  ! --------------------------------------------------------------------

  ! `text` without trailing blanks, followed by a NUL
  function op2_c_string(text) result(s)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=:), allocatable :: s
    s = trim(text) // C_NULL_CHAR
  end function op2_c_string

  ! `name` as a C string, or `fallback` when the optional name is absent
  function op2_c_name(fallback, name) result(s)
    character(len=*), intent(in) :: fallback
    character(len=*), intent(in), optional :: name
    character(kind=c_char, len=:), allocatable :: s
    if (present(name)) then
      s = op2_c_string(name)
    else
      s = op2_c_string(fallback)
    end if
  end function op2_c_name

  ! a user type string for C: trimmed, lower case, NUL-terminated
  function op2_c_type(type) result(s)
    character(len=*), intent(in) :: type
    character(kind=c_char, len=:), allocatable :: s
    integer :: i, c
    s = trim(adjustl(type)) // C_NULL_CHAR
    do i = 1, len(s) - 1
      c = iachar(s(i:i))
      if (c >= iachar('A') .and. c <= iachar('Z')) s(i:i) = achar(c + 32)
    end do
  end function op2_c_type

  ! The canonical name of a Fortran type string ('' if not recognised).
  function op2_type_class(type) result(canonical)
    character(len=*), intent(in) :: type
    character(len=:), allocatable :: canonical
    character(kind=c_char, len=:), allocatable :: t
    t = op2_c_type(type)
    select case (t(1:len(t) - 1))
    case ('r8', 'real(8)', 'real*8', 'real(kind=8)', 'double precision', 'double')
      canonical = 'real(8)'
    case ('r4', 'real(4)', 'real*4', 'real(kind=4)', 'real', 'float')
      canonical = 'real(4)'
    case ('i4', 'integer(4)', 'integer*4', 'integer(kind=4)', 'integer', 'int')
      canonical = 'integer(4)'
    case ('i8', 'integer(8)', 'integer*8', 'integer(kind=8)', 'll')
      canonical = 'integer(8)'
    case ('logical', 'logical(4)', 'logical(kind=4)', 'bool')
      canonical = 'logical'
    case default
      canonical = ''
    end select
  end function op2_type_class

  ! The type string given with typed data is informational (the data's own
  ! type is what C gets); a string naming a different type is reported.
  subroutine op2_check_type(type, canonical, what)
    character(len=*), intent(in) :: type
    character(len=*), intent(in) :: canonical
    character(len=*), intent(in) :: what
    character(len=:), allocatable :: named
    named = op2_type_class(type)
    if (len(named) > 0 .and. named /= canonical) then
      write (op2_error_unit, '(A)') ' OP2 warning: ' // what // ': type string "' // trim(type) // &
        '" given for ' // canonical // ' data'
    end if
  end subroutine op2_check_type

  ! the C map column for a Fortran one (see the module header)
  function op2_c_idx(idx) result(cidx)
    integer(c_int), intent(in) :: idx
    integer(c_int) :: cidx
    if (idx >= 1) then
      cidx = idx - 1
    else if (idx <= -1) then
      cidx = idx
    else
      write (*, '(A)') ' OP2 error: map index 0 in a Fortran op_arg (indices are 1-based, -1 = direct)'
      error stop 1
    end if
  end function op2_c_idx

  ! Is `map` OP_ID, OP_GBL or an undeclared handle (all passed as NULL)?
  logical function op2_is_null_map(map)
    type(op_map), intent(in) :: map
    if (.not. c_associated(map%mapCptr)) then
      op2_is_null_map = .true.
    else if (.not. associated(map%mapPtr)) then
      op2_is_null_map = .false.
    else
      op2_is_null_map = map%mapPtr%dim <= 0
    end if
  end function op2_is_null_map

  integer(c_int) function op2_c_flag(flag)
    logical, intent(in) :: flag
    if (flag) then
      op2_c_flag = 1
    else
      op2_c_flag = 0
    end if
  end function op2_c_flag

  ! A multi-dimensional array whose address is handed to C must be contiguous.
  subroutine op2_require_contiguous(contiguous_data, what)
    logical, intent(in) :: contiguous_data
    character(len=*), intent(in) :: what
    if (.not. contiguous_data) then
      write (*, '(A)') ' OP2 error: ' // what // ': the array must be contiguous'
      error stop 1
    end if
  end subroutine op2_require_contiguous

  ! --------------------------------------------------------------------
  ! Initialisation and exit
  ! --------------------------------------------------------------------

  subroutine op2_setup_null_maps()
    op_id_record%index = -1
    op_id_record%dim = 0
    op_gbl_record%index = -1
    op_gbl_record%dim = -1
    OP_ID%mapPtr => op_id_record
    OP_ID%mapCptr = c_loc(op_id_record)
    OP_GBL%mapPtr => op_gbl_record
    OP_GBL%mapCptr = c_loc(op_gbl_record)
  end subroutine op2_setup_null_maps

  ! hand every command-line argument to the library (OP_* options)
  subroutine op2_pass_command_line()
    integer :: i, n, length
    character(len=:), allocatable :: arg
    n = command_argument_count()
    do i = 1, n
      call get_command_argument(i, length=length)
      allocate (character(len=length) :: arg)
      call get_command_argument(i, arg)
      call op_set_args_c(int(n, c_int), op2_c_string(arg))
      deallocate (arg)
    end do
  end subroutine op2_pass_command_line

  subroutine op_init_base_soa(diags, base_idx, soa)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: base_idx
    integer(4), intent(in) :: soa
    call op2_setup_null_maps()
    call set_maps_base_c(int(base_idx, c_int))
    call op_init_soa_c(0_c_int, C_NULL_PTR, int(diags, c_int), int(soa, c_int))
    call op2_pass_command_line()
  end subroutine op_init_base_soa

  subroutine op_init_base(diags, base_idx)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: base_idx
    call op_init_base_soa(diags, base_idx, 0)
  end subroutine op_init_base

  subroutine op_init(diags)
    integer(4), intent(in) :: diags
    call op_init_base_soa(diags, 1, 0)
  end subroutine op_init

  subroutine op_init_soa(diags, soa)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: soa
    call op_init_base_soa(diags, 1, soa)
  end subroutine op_init_soa

  subroutine op_mpi_init_base_soa(diags, global, local, base_idx, soa)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: global
    integer(4), intent(in) :: local
    integer(4), intent(in) :: base_idx
    integer(4), intent(in) :: soa
    call op2_setup_null_maps()
    call set_maps_base_c(int(base_idx, c_int))
    call op_mpi_init_soa_c(0_c_int, C_NULL_PTR, int(diags, c_int), int(global, c_int), &
                           int(local, c_int), int(soa, c_int))
    call op2_pass_command_line()
  end subroutine op_mpi_init_base_soa

  subroutine op_mpi_init(diags, global, local)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: global
    integer(4), intent(in) :: local
    call op_mpi_init_base_soa(diags, global, local, 1, 0)
  end subroutine op_mpi_init

  subroutine op_mpi_init_base(diags, global, local, base_idx)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: global
    integer(4), intent(in) :: local
    integer(4), intent(in) :: base_idx
    call op_mpi_init_base_soa(diags, global, local, base_idx, 0)
  end subroutine op_mpi_init_base

  subroutine op_mpi_init_soa(diags, global, local, soa)
    integer(4), intent(in) :: diags
    integer(4), intent(in) :: global
    integer(4), intent(in) :: local
    integer(4), intent(in) :: soa
    call op_mpi_init_base_soa(diags, global, local, 1, soa)
  end subroutine op_mpi_init_soa

  subroutine op_exit()
    call op_exit_c()
  end subroutine op_exit

  ! --------------------------------------------------------------------
  ! Sets, maps, dats
  ! --------------------------------------------------------------------

  subroutine op_decl_set(setsize, set, opname)
    integer(idx_l_t), intent(in) :: setsize
    type(op_set), intent(inout) :: set
    character(len=*), intent(in), optional :: opname
    set%setCptr = op_decl_set_c(setsize, op2_c_name('NONAME', opname))
    call c_f_pointer(set%setCptr, set%setPtr)
  end subroutine op_decl_set

  subroutine op_decl_map(from, to, mapdim, dat, map, opname)
    type(op_set), intent(in) :: from
    type(op_set), intent(in) :: to
    integer(4), intent(in) :: mapdim
    integer(4), dimension(*), intent(in), target :: dat
    type(op_map), intent(inout) :: map
    character(len=*), intent(in), optional :: opname
    map%mapCptr = op_decl_map_c(from%setCptr, to%setCptr, int(mapdim, c_int), c_loc(dat), &
                                op2_c_name('NONAME', opname))
    call c_f_pointer(map%mapCptr, map%mapPtr)
  end subroutine op_decl_map

  subroutine op_decl_map_long(from, to, mapdim, dat, map, opname)
    type(op_set), intent(in) :: from
    type(op_set), intent(in) :: to
    integer(4), intent(in) :: mapdim
    integer(idx_g_t), dimension(*), intent(in), target :: dat
    type(op_map), intent(inout) :: map
    character(len=*), intent(in), optional :: opname
    map%mapCptr = op_decl_map_long_c(from%setCptr, to%setCptr, int(mapdim, c_int), c_loc(dat), &
                                     op2_c_name('NONAME', opname))
    call c_f_pointer(map%mapCptr, map%mapPtr)
  end subroutine op_decl_map_long

  ! A zero-initialised dat; type is 'r4'/'real(4)', 'r8'/'real(8)',
  ! 'i4'/'integer(4)' or 'logical'.
  subroutine op_decl_dat_temp(set, dim, type, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    character(kind=c_char, len=:), allocatable :: ctype, canonical
    integer(c_int) :: typesize
    ctype = op2_c_type(type)
    select case (ctype(1:len(ctype) - 1))
    case ('r4', 'real(4)', 'real*4', 'real', 'float')
      canonical = 'real(4)'
      typesize = 4
    case ('r8', 'real(8)', 'real*8', 'double precision', 'double')
      canonical = 'real(8)'
      typesize = 8
    case ('i4', 'integer(4)', 'integer*4', 'integer', 'int')
      canonical = 'integer(4)'
      typesize = 4
    case ('logical', 'logical(4)')
      canonical = 'logical'
      typesize = int(storage_size(.true.) / 8, c_int)
    case default
      write (*, '(A)') ' OP2 error: op_decl_dat_temp: unknown type "' // trim(type) // '"'
      error stop 1
    end select
    dat%dataCptr = op_decl_dat_temp_c(set%setCptr, int(dim, c_int), op2_c_string(canonical), &
                                      typesize, op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_temp

  ! Free a dat from op_decl_dat_temp: 1 on success, -1 if `dat` is not a
  ! live dat. On success the handle is cleared.
  integer(c_int) function op_free_dat_temp(dat)
    type(op_dat), intent(inout) :: dat
    op_free_dat_temp = op_free_dat_temp_c(dat%dataCptr)
    if (op_free_dat_temp == 1) then
      dat%dataCptr = C_NULL_PTR
      nullify (dat%dataPtr)
    end if
  end function op_free_dat_temp

  integer(idx_g_t) function op_get_size(set)
    type(op_set), intent(in) :: set
    op_get_size = op_get_size_c(set%setCptr)
  end function op_get_size

  integer(idx_g_t) function op_get_global_set_offset(set)
    type(op_set), intent(in) :: set
    op_get_global_set_offset = op_get_global_set_offset_c(set%setCptr)
  end function op_get_global_set_offset

  integer(c_int) function op_get_size_local(set)
    type(op_set), intent(in) :: set
    op_get_size_local = op_get_size_local_c(set%setCptr)
  end function op_get_size_local

  integer(c_int) function op_get_size_local_core(set)
    type(op_set), intent(in) :: set
    op_get_size_local_core = op_get_size_local_core_c(set%setCptr)
  end function op_get_size_local_core

  integer(c_int) function op_get_size_local_exec(set)
    type(op_set), intent(in) :: set
    op_get_size_local_exec = op_get_size_local_exec_c(set%setCptr)
  end function op_get_size_local_exec

  integer(c_int) function op_get_size_local_full(set)
    type(op_set), intent(in) :: set
    op_get_size_local_full = op_get_size_local_full_c(set%setCptr)
  end function op_get_size_local_full

  integer(c_int) function get_set_size_handle(set)
    type(op_set), intent(in) :: set
    get_set_size_handle = get_set_size_c(set%setCptr)
  end function get_set_size_handle

  integer(c_int) function get_set_size_record(set)
    type(op_set_core), intent(in), target :: set
    get_set_size_record = get_set_size_c(c_loc(set))
  end function get_set_size_record

  integer(c_int) function get_associated_set_size_handle(dat)
    type(op_dat), intent(in) :: dat
    get_associated_set_size_handle = get_associated_set_size_c(dat%dataCptr)
  end function get_associated_set_size_handle

  integer(c_int) function get_associated_set_size_record(dat)
    type(op_dat_core), intent(in), target :: dat
    get_associated_set_size_record = get_associated_set_size_c(c_loc(dat))
  end function get_associated_set_size_record

  ! --------------------------------------------------------------------
  ! Loop arguments on op_dat handles ("python" style)
  ! --------------------------------------------------------------------

  type(op_arg) function op_arg_dat_python(dat, idx, map, dim, type, access)
    type(op_dat), intent(in) :: dat
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    if (op2_is_null_map(map) .or. idx == -1) then
      op_arg_dat_python = op_arg_dat_c(dat%dataCptr, -1_c_int, C_NULL_PTR, dim, op2_c_type(type), access - 1)
    else
      op_arg_dat_python = op_arg_dat_c(dat%dataCptr, op2_c_idx(idx), map%mapCptr, dim, op2_c_type(type), &
                                       access - 1)
    end if
  end function op_arg_dat_python

  type(op_arg) function op_opt_arg_dat_python(opt, dat, idx, map, dim, type, access)
    logical, intent(in) :: opt
    type(op_dat), intent(in) :: dat
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    if (op2_is_null_map(map) .or. idx == -1) then
      op_opt_arg_dat_python = op_opt_arg_dat_c(op2_c_flag(opt), dat%dataCptr, -1_c_int, C_NULL_PTR, dim, &
                                               op2_c_type(type), access - 1)
    else
      op_opt_arg_dat_python = op_opt_arg_dat_c(op2_c_flag(opt), dat%dataCptr, op2_c_idx(idx), map%mapCptr, &
                                               dim, op2_c_type(type), access - 1)
    end if
  end function op_opt_arg_dat_python

  ! Raw-array arguments with a type(op_map) map: the dat is looked up by the
  ! array's address (C op_arg_dat_ptr), the map is the handle.
  type(op_arg) function op2_arg_dat_addr_map(opt, addr, idx, map, dim, type, access)
    logical, intent(in) :: opt
    type(c_ptr), intent(in) :: addr
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    type(op_arg) :: direct
    direct = op_arg_dat_ptr_c(op2_c_flag(opt), addr, -1_c_int, C_NULL_PTR, dim, op2_c_string(type), access - 1)
    if (op2_is_null_map(map) .or. idx == -1) then
      op2_arg_dat_addr_map = direct
    else
      op2_arg_dat_addr_map = op_opt_arg_dat_c(op2_c_flag(opt), direct%dat, op2_c_idx(idx), map%mapCptr, dim, &
                                              op2_c_string(type), access - 1)
    end if
  end function op2_arg_dat_addr_map

  ! Raw-array arguments with an integer map array: both looked up by address.
  type(op_arg) function op2_arg_dat_addr_array(opt, addr, idx, map_addr, dim, type, access)
    logical, intent(in) :: opt
    type(c_ptr), intent(in) :: addr
    integer(c_int), intent(in) :: idx
    type(c_ptr), intent(in) :: map_addr
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    ! -1 is direct access whatever the map argument (as with op_dat handles)
    if (idx == -1) then
      op2_arg_dat_addr_array = op_arg_dat_ptr_c(op2_c_flag(opt), addr, -1_c_int, C_NULL_PTR, dim, &
                                                op2_c_string(type), access - 1)
    else
      op2_arg_dat_addr_array = op_arg_dat_ptr_c(op2_c_flag(opt), addr, op2_c_idx(idx), map_addr, dim, &
                                                op2_c_string(type), access - 1)
    end if
  end function op2_arg_dat_addr_array

  ! --------------------------------------------------------------------
  ! Index arguments
  ! --------------------------------------------------------------------

  type(op_arg) function op_arg_idx_map(idx, map)
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    if (op2_is_null_map(map) .or. idx == -1) then
      op_arg_idx_map = op_arg_idx_c(-1_c_int, C_NULL_PTR)
    else
      op_arg_idx_map = op_arg_idx_c(op2_c_idx(idx), map%mapCptr)
    end if
  end function op_arg_idx_map

  type(op_arg) function op_arg_idx_array1(idx, map)
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    if (idx == -1) then
      op_arg_idx_array1 = op_arg_idx_ptr_c(-1_c_int, c_loc(map))
    else
      op_arg_idx_array1 = op_arg_idx_ptr_c(op2_c_idx(idx), c_loc(map))
    end if
  end function op_arg_idx_array1

  type(op_arg) function op_arg_idx_array2(idx, map)
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    call op2_require_contiguous(is_contiguous(map), 'op_arg_idx')
    if (idx == -1) then
      op_arg_idx_array2 = op_arg_idx_ptr_c(-1_c_int, c_loc(map))
    else
      op_arg_idx_array2 = op_arg_idx_ptr_c(op2_c_idx(idx), c_loc(map))
    end if
  end function op_arg_idx_array2

  ! --------------------------------------------------------------------
  ! Output, timing, misc
  ! --------------------------------------------------------------------

  subroutine op_print_dat_to_binfile(dat, fileName)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: fileName
    call op_print_dat_to_binfile_c(dat%dataCptr, op2_c_string(fileName))
  end subroutine op_print_dat_to_binfile

  subroutine op_print_dat_to_txtfile(dat, fileName)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: fileName
    call op_print_dat_to_txtfile_c(dat%dataCptr, op2_c_string(fileName))
  end subroutine op_print_dat_to_txtfile

  ! wall-clock seconds
  subroutine op_timers(et)
    real(c_double), intent(out) :: et
    real(c_double) :: cpu
    call op_timers_c(cpu, et)
  end subroutine op_timers

  subroutine op_timers_core(et)
    real(c_double), intent(out) :: et
    real(c_double) :: cpu
    call op_timers_core_c(cpu, et)
  end subroutine op_timers_core

  subroutine op_print(line)
    character(len=*), intent(in) :: line
    call op_print_c(op2_c_string(line))
  end subroutine op_print

  subroutine op_partition(lib_name, lib_routine, prime_set, prime_map, coords)
    character(len=*), intent(in) :: lib_name
    character(len=*), intent(in) :: lib_routine
    type(op_set), intent(in) :: prime_set
    type(op_map), intent(in) :: prime_map
    type(op_dat), intent(in) :: coords
    type(c_ptr) :: cmap
    if (op2_is_null_map(prime_map)) then
      cmap = C_NULL_PTR
    else
      cmap = prime_map%mapCptr
    end if
    call op_partition_c(op2_c_string(lib_name), op2_c_string(lib_routine), prime_set%setCptr, cmap, &
                        coords%dataCptr)
  end subroutine op_partition

  subroutine op_mpi_rank(rank)
    integer(c_int), intent(out) :: rank
    call op_mpi_rank_c(rank)
  end subroutine op_mpi_rank

  logical function isCNullPointer(ptr)
    type(c_ptr), intent(in) :: ptr
    isCNullPointer = isCNullPointer_c(ptr)
  end function isCNullPointer

  subroutine op_profile_start(name)
    character(len=*), intent(in) :: name
    call op_profile_start_c(op2_c_string(name))
  end subroutine op_profile_start

  subroutine op_profile_enter(name)
    character(len=*), intent(in) :: name
    call op_profile_enter_c(op2_c_string(name))
  end subroutine op_profile_enter

  subroutine op_profile_enter_kernel(name, target, variant)
    character(len=*), intent(in) :: name
    character(len=*), intent(in) :: target
    character(len=*), intent(in) :: variant
    call op_profile_enter_kernel_c(op2_c_string(name), op2_c_string(target), op2_c_string(variant))
  end subroutine op_profile_enter_kernel

  subroutine op_profile_next(name)
    character(len=*), intent(in) :: name
    call op_profile_next_c(op2_c_string(name))
  end subroutine op_profile_next

  subroutine op_profile_output_json(fileName)
    character(len=*), intent(in) :: fileName
    call op_profile_output_json_c(op2_c_string(fileName))
  end subroutine op_profile_output_json

  ! ---- reaching library-held data (OP2's names and argument forms) ----

  ! the address of a dat's data (handle, or the number/address it is filed under)
  integer(8) function op_get_data_ptr_dat(dat)
    type(op_dat), intent(in) :: dat
    op_get_data_ptr_dat = op_get_data_ptr_c(dat%dataCptr)
  end function op_get_data_ptr_dat

  integer(8) function op_get_data_ptr_int(dat)
    integer(8), intent(in) :: dat
    op_get_data_ptr_int = op_get_data_ptr_int_c(dat)
  end function op_get_data_ptr_int

  integer(8) function op_get_map_ptr(map)
    type(op_map), intent(in) :: map
    op_get_map_ptr = op_get_map_ptr_c(map%mapCptr)
  end function op_get_map_ptr

  integer(8) function op_reset_map_ptr(map)
    integer(4), dimension(*), intent(in), target :: map
    op_reset_map_ptr = op_reset_map_ptr_c(c_loc(map))
  end function op_reset_map_ptr

  integer(8) function op_copy_map_to_fort(map)
    integer(4), dimension(*), intent(in), target :: map
    op_copy_map_to_fort = op_copy_map_to_fort_c(c_loc(map))
  end function op_copy_map_to_fort

  subroutine op_force_part(map)
    integer(4), dimension(*), intent(in), target :: map
    call op_force_part_c(c_loc(map))
  end subroutine op_force_part

  subroutine op_register_set(idx, set)
    integer(c_int), value, intent(in) :: idx
    type(op_set), intent(in) :: set
    call op_register_set_c(idx, set%setCptr)
  end subroutine op_register_set

  ! the set filed under idx (a null handle when there is none)
  type(op_set) function op_get_set(idx)
    integer(c_int), value, intent(in) :: idx
    op_get_set%setCptr = op_get_set_c(idx)
    if (c_associated(op_get_set%setCptr)) call c_f_pointer(op_get_set%setCptr, op_get_set%setPtr)
  end function op_get_set

  ! the address of the global (0-based) indices of a set's owned elements
  ! (integer(8) each); 0 on one node
  integer(8) function op_get_g_index(set)
    type(op_set), intent(in) :: set
    op_get_g_index = op_get_g_index_c(set%setCptr)
  end function op_get_g_index

  ! a copy of a dat (C handle) in the original order; op_mpi_free_data frees it
  function op_mpi_get_data(dat)
    type(c_ptr), intent(in) :: dat
    type(op_dat) :: op_mpi_get_data
    op_mpi_get_data%dataCptr = op_mpi_get_data_c(dat)
    call c_f_pointer(op_mpi_get_data%dataCptr, op_mpi_get_data%dataPtr)
  end function op_mpi_get_data

  subroutine op_mpi_free_data(dat)
    type(op_dat), intent(inout) :: dat
    call op_mpi_free_data_c(dat%dataCptr)
    dat%dataCptr = C_NULL_PTR
    nullify(dat%dataPtr)
  end subroutine op_mpi_free_data

  subroutine op_get_dat_mpi(dat)
    type(op_dat), intent(in) :: dat
    call op_get_dat_mpi_c(dat%dataCptr)
  end subroutine op_get_dat_mpi

  subroutine op_put_dat_mpi(dat)
    type(op_dat), intent(in) :: dat
    call op_put_dat_mpi_c(dat%dataCptr)
  end subroutine op_put_dat_mpi

  subroutine op_dat_write_index(set, dat)
    type(op_set), intent(in) :: set
    integer(4), dimension(*), intent(in), target :: dat
    call op_dat_write_index_c(set%setCptr, c_loc(dat))
  end subroutine op_dat_write_index

  subroutine op_print_dat_to_txtfile2_real_8(dat, fileName)
    real(8), dimension(*), intent(in), target :: dat
    character(len=*), intent(in) :: fileName
    call op_print_dat_to_txtfile2_c(c_loc(dat), op2_c_string(fileName))
  end subroutine op_print_dat_to_txtfile2_real_8

  subroutine op_print_dat_to_txtfile2_integer_4(dat, fileName)
    integer(4), dimension(*), intent(in), target :: dat
    character(len=*), intent(in) :: fileName
    call op_print_dat_to_txtfile2_c(c_loc(dat), op2_c_string(fileName))
  end subroutine op_print_dat_to_txtfile2_integer_4

  subroutine op_disable_mpi_reductions(disable)
    logical, value :: disable
    call op_disable_mpi_reductions_c(logical(disable, kind=c_bool))
  end subroutine op_disable_mpi_reductions

  ! Should loop `name` run its main version (not its fallback)?
  function op_check_whitelist(name) result(res)
    character(kind=c_char, len=*), intent(in) :: name
    logical(c_bool) :: res
    res = op_check_whitelist_c(op2_c_string(name))
  end function op_check_whitelist

  ! Loop `name` runs its fallback: warn or stop as OP_FALLBACK_MODE says.
  subroutine op_check_fallback_mode(name)
    character(kind=c_char, len=*), intent(in) :: name
    call op_check_fallback_mode_c(op2_c_string(name))
  end subroutine op_check_fallback_mode

  ! .true.: every loop runs its fallback (silently).
  subroutine op_disable_device_execution(disable)
    logical, value :: disable
    call op_disable_device_execution_c(logical(disable, kind=c_bool))
  end subroutine op_disable_device_execution

!GENERATED-BEGIN procedures
  subroutine op_decl_dat_i4_1(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(*), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'integer(4)', 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('integer(4)'), 4_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_i4_1

  subroutine op_decl_dat_i4_2(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(:, :), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'integer(4)', 'op_decl_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('integer(4)'), 4_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_i4_2

  subroutine op_decl_dat_i4_3(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(:, :, :), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'integer(4)', 'op_decl_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('integer(4)'), 4_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_i4_3

  subroutine op_decl_dat_r4_1(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(*), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'real(4)', 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('real(4)'), 4_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_r4_1

  subroutine op_decl_dat_r4_2(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(:, :), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'real(4)', 'op_decl_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('real(4)'), 4_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_r4_2

  subroutine op_decl_dat_r4_3(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(:, :, :), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'real(4)', 'op_decl_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('real(4)'), 4_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_r4_3

  subroutine op_decl_dat_r8_1(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(*), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'real(8)', 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('real(8)'), 8_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_r8_1

  subroutine op_decl_dat_r8_2(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(:, :), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'real(8)', 'op_decl_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('real(8)'), 8_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_r8_2

  subroutine op_decl_dat_r8_3(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(:, :, :), intent(in), target :: data
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in), optional :: name
    call op2_check_type(type, 'real(8)', 'op_decl_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat')
    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('real(8)'), 8_c_int, &
                                 c_loc(data), op2_c_name('unnamed', name))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_r8_3

  subroutine op_decl_const_i4_0(data, dim, name)
    integer(4), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('integer(4)'), 4_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_i4_0

  subroutine op_decl_const_i4_1(data, dim, name)
    integer(4), dimension(*), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('integer(4)'), 4_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_i4_1

  subroutine op_decl_const_i4_2(data, dim, name)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op2_require_contiguous(is_contiguous(data), 'op_decl_const')
    call op_decl_const_c(int(dim, c_int), op2_c_string('integer(4)'), 4_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_i4_2

  subroutine op_decl_const_i8_0(data, dim, name)
    integer(8), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('integer(8)'), 8_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_i8_0

  subroutine op_decl_const_i8_1(data, dim, name)
    integer(8), dimension(*), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('integer(8)'), 8_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_i8_1

  subroutine op_decl_const_i8_2(data, dim, name)
    integer(8), dimension(:, :), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op2_require_contiguous(is_contiguous(data), 'op_decl_const')
    call op_decl_const_c(int(dim, c_int), op2_c_string('integer(8)'), 8_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_i8_2

  subroutine op_decl_const_r4_0(data, dim, name)
    real(4), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('real(4)'), 4_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_r4_0

  subroutine op_decl_const_r4_1(data, dim, name)
    real(4), dimension(*), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('real(4)'), 4_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_r4_1

  subroutine op_decl_const_r4_2(data, dim, name)
    real(4), dimension(:, :), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op2_require_contiguous(is_contiguous(data), 'op_decl_const')
    call op_decl_const_c(int(dim, c_int), op2_c_string('real(4)'), 4_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_r4_2

  subroutine op_decl_const_r8_0(data, dim, name)
    real(8), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('real(8)'), 8_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_r8_0

  subroutine op_decl_const_r8_1(data, dim, name)
    real(8), dimension(*), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('real(8)'), 8_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_r8_1

  subroutine op_decl_const_r8_2(data, dim, name)
    real(8), dimension(:, :), intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op2_require_contiguous(is_contiguous(data), 'op_decl_const')
    call op_decl_const_c(int(dim, c_int), op2_c_string('real(8)'), 8_c_int, c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_r8_2

  subroutine op_decl_const_l_0(data, dim, name)
    logical, intent(in), target :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    call op_decl_const_c(int(dim, c_int), op2_c_string('logical'), int(storage_size(.true.) / 8, c_int), c_loc(data), &
                         op2_c_name('unnamed', name))
  end subroutine op_decl_const_l_0

  ! character constants: nothing to check or copy
  subroutine op_decl_const_string(data, dim, name)
    character(len=*), intent(in) :: data
    integer(4), intent(in) :: dim
    character(len=*), intent(in), optional :: name
    if (len(data) < 0 .and. dim < 0 .and. present(name)) continue
  end subroutine op_decl_const_string

  type(op_arg) function op_arg_dat_i4_1_m1(data, idx, map, dim, type, access)
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    op_arg_dat_i4_1_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_arg_dat_i4_1_m1

  type(op_arg) function op_arg_dat_i4_1_m2(data, idx, map, dim, type, access)
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_i4_1_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_arg_dat_i4_1_m2

  type(op_arg) function op_arg_dat_i4_1_mh(data, idx, map, dim, type, access)
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    op_arg_dat_i4_1_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'integer(4)', access)
  end function op_arg_dat_i4_1_mh

  type(op_arg) function op_arg_dat_i4_2_m1(data, idx, map, dim, type, access)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_i4_2_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_arg_dat_i4_2_m1

  type(op_arg) function op_arg_dat_i4_2_m2(data, idx, map, dim, type, access)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_i4_2_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_arg_dat_i4_2_m2

  type(op_arg) function op_arg_dat_i4_2_mh(data, idx, map, dim, type, access)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_i4_2_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'integer(4)', access)
  end function op_arg_dat_i4_2_mh

  type(op_arg) function op_arg_dat_i4_3_m1(data, idx, map, dim, type, access)
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_i4_3_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_arg_dat_i4_3_m1

  type(op_arg) function op_arg_dat_i4_3_m2(data, idx, map, dim, type, access)
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_i4_3_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_arg_dat_i4_3_m2

  type(op_arg) function op_arg_dat_i4_3_mh(data, idx, map, dim, type, access)
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_i4_3_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'integer(4)', access)
  end function op_arg_dat_i4_3_mh

  type(op_arg) function op_arg_dat_r4_1_m1(data, idx, map, dim, type, access)
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    op_arg_dat_r4_1_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_arg_dat_r4_1_m1

  type(op_arg) function op_arg_dat_r4_1_m2(data, idx, map, dim, type, access)
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_r4_1_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_arg_dat_r4_1_m2

  type(op_arg) function op_arg_dat_r4_1_mh(data, idx, map, dim, type, access)
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    op_arg_dat_r4_1_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'real(4)', access)
  end function op_arg_dat_r4_1_mh

  type(op_arg) function op_arg_dat_r4_2_m1(data, idx, map, dim, type, access)
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r4_2_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_arg_dat_r4_2_m1

  type(op_arg) function op_arg_dat_r4_2_m2(data, idx, map, dim, type, access)
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_r4_2_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_arg_dat_r4_2_m2

  type(op_arg) function op_arg_dat_r4_2_mh(data, idx, map, dim, type, access)
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r4_2_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'real(4)', access)
  end function op_arg_dat_r4_2_mh

  type(op_arg) function op_arg_dat_r4_3_m1(data, idx, map, dim, type, access)
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r4_3_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_arg_dat_r4_3_m1

  type(op_arg) function op_arg_dat_r4_3_m2(data, idx, map, dim, type, access)
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_r4_3_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_arg_dat_r4_3_m2

  type(op_arg) function op_arg_dat_r4_3_mh(data, idx, map, dim, type, access)
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r4_3_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'real(4)', access)
  end function op_arg_dat_r4_3_mh

  type(op_arg) function op_arg_dat_r8_1_m1(data, idx, map, dim, type, access)
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    op_arg_dat_r8_1_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_arg_dat_r8_1_m1

  type(op_arg) function op_arg_dat_r8_1_m2(data, idx, map, dim, type, access)
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_r8_1_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_arg_dat_r8_1_m2

  type(op_arg) function op_arg_dat_r8_1_mh(data, idx, map, dim, type, access)
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    op_arg_dat_r8_1_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'real(8)', access)
  end function op_arg_dat_r8_1_mh

  type(op_arg) function op_arg_dat_r8_2_m1(data, idx, map, dim, type, access)
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r8_2_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_arg_dat_r8_2_m1

  type(op_arg) function op_arg_dat_r8_2_m2(data, idx, map, dim, type, access)
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_r8_2_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_arg_dat_r8_2_m2

  type(op_arg) function op_arg_dat_r8_2_mh(data, idx, map, dim, type, access)
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r8_2_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'real(8)', access)
  end function op_arg_dat_r8_2_mh

  type(op_arg) function op_arg_dat_r8_3_m1(data, idx, map, dim, type, access)
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r8_3_m1 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_arg_dat_r8_3_m1

  type(op_arg) function op_arg_dat_r8_3_m2(data, idx, map, dim, type, access)
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_arg_dat')
    op_arg_dat_r8_3_m2 = op2_arg_dat_addr_array(.true., c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_arg_dat_r8_3_m2

  type(op_arg) function op_arg_dat_r8_3_mh(data, idx, map, dim, type, access)
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_dat')
    op_arg_dat_r8_3_mh = op2_arg_dat_addr_map(.true., c_loc(data), idx, map, dim, 'real(8)', access)
  end function op_arg_dat_r8_3_mh

  type(op_arg) function op_opt_arg_dat_i4_1_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    op_opt_arg_dat_i4_1_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_opt_arg_dat_i4_1_m1

  type(op_arg) function op_opt_arg_dat_i4_1_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_1_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_opt_arg_dat_i4_1_m2

  type(op_arg) function op_opt_arg_dat_i4_1_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    op_opt_arg_dat_i4_1_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'integer(4)', access)
  end function op_opt_arg_dat_i4_1_mh

  type(op_arg) function op_opt_arg_dat_i4_2_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_2_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_opt_arg_dat_i4_2_m1

  type(op_arg) function op_opt_arg_dat_i4_2_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_2_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_opt_arg_dat_i4_2_m2

  type(op_arg) function op_opt_arg_dat_i4_2_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_2_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'integer(4)', access)
  end function op_opt_arg_dat_i4_2_mh

  type(op_arg) function op_opt_arg_dat_i4_3_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_3_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_opt_arg_dat_i4_3_m1

  type(op_arg) function op_opt_arg_dat_i4_3_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_3_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'integer(4)', &
                                     access)
  end function op_opt_arg_dat_i4_3_m2

  type(op_arg) function op_opt_arg_dat_i4_3_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_i4_3_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'integer(4)', access)
  end function op_opt_arg_dat_i4_3_mh

  type(op_arg) function op_opt_arg_dat_r4_1_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    op_opt_arg_dat_r4_1_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_opt_arg_dat_r4_1_m1

  type(op_arg) function op_opt_arg_dat_r4_1_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_1_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_opt_arg_dat_r4_1_m2

  type(op_arg) function op_opt_arg_dat_r4_1_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    op_opt_arg_dat_r4_1_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'real(4)', access)
  end function op_opt_arg_dat_r4_1_mh

  type(op_arg) function op_opt_arg_dat_r4_2_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_2_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_opt_arg_dat_r4_2_m1

  type(op_arg) function op_opt_arg_dat_r4_2_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_2_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_opt_arg_dat_r4_2_m2

  type(op_arg) function op_opt_arg_dat_r4_2_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_2_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'real(4)', access)
  end function op_opt_arg_dat_r4_2_mh

  type(op_arg) function op_opt_arg_dat_r4_3_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_3_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_opt_arg_dat_r4_3_m1

  type(op_arg) function op_opt_arg_dat_r4_3_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_3_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(4)', &
                                     access)
  end function op_opt_arg_dat_r4_3_m2

  type(op_arg) function op_opt_arg_dat_r4_3_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r4_3_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'real(4)', access)
  end function op_opt_arg_dat_r4_3_mh

  type(op_arg) function op_opt_arg_dat_r8_1_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    op_opt_arg_dat_r8_1_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_opt_arg_dat_r8_1_m1

  type(op_arg) function op_opt_arg_dat_r8_1_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_1_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_opt_arg_dat_r8_1_m2

  type(op_arg) function op_opt_arg_dat_r8_1_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    op_opt_arg_dat_r8_1_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'real(8)', access)
  end function op_opt_arg_dat_r8_1_mh

  type(op_arg) function op_opt_arg_dat_r8_2_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_2_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_opt_arg_dat_r8_2_m1

  type(op_arg) function op_opt_arg_dat_r8_2_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_2_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_opt_arg_dat_r8_2_m2

  type(op_arg) function op_opt_arg_dat_r8_2_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_2_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'real(8)', access)
  end function op_opt_arg_dat_r8_2_mh

  type(op_arg) function op_opt_arg_dat_r8_3_m1(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(*), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_3_m1 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_opt_arg_dat_r8_3_m1

  type(op_arg) function op_opt_arg_dat_r8_3_m2(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    integer(4), dimension(:, :), intent(in), target :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(map), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_3_m2 = op2_arg_dat_addr_array(opt, c_loc(data), idx, c_loc(map), dim, 'real(8)', &
                                     access)
  end function op_opt_arg_dat_r8_3_m2

  type(op_arg) function op_opt_arg_dat_r8_3_mh(opt, data, idx, map, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: idx
    type(op_map), intent(in) :: map
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_dat')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_dat')
    op_opt_arg_dat_r8_3_mh = op2_arg_dat_addr_map(opt, c_loc(data), idx, map, dim, 'real(8)', access)
  end function op_opt_arg_dat_r8_3_mh

  type(op_arg) function op_arg_gbl_i4_0(data, dim, type, access)
    integer(4), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_gbl')
    op_arg_gbl_i4_0 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_i4_0

  type(op_arg) function op_arg_gbl_i4_1(data, dim, type, access)
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_gbl')
    op_arg_gbl_i4_1 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_i4_1

  type(op_arg) function op_arg_gbl_i4_2(data, dim, type, access)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_i4_2 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_i4_2

  type(op_arg) function op_arg_gbl_i4_3(data, dim, type, access)
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_i4_3 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_i4_3

  type(op_arg) function op_arg_gbl_i4_4(data, dim, type, access)
    integer(4), dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_i4_4 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_i4_4

  type(op_arg) function op_arg_gbl_r4_0(data, dim, type, access)
    real(4), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_gbl')
    op_arg_gbl_r4_0 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_r4_0

  type(op_arg) function op_arg_gbl_r4_1(data, dim, type, access)
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_gbl')
    op_arg_gbl_r4_1 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_r4_1

  type(op_arg) function op_arg_gbl_r4_2(data, dim, type, access)
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_r4_2 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_r4_2

  type(op_arg) function op_arg_gbl_r4_3(data, dim, type, access)
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_r4_3 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_r4_3

  type(op_arg) function op_arg_gbl_r4_4(data, dim, type, access)
    real(4), dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_r4_4 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_arg_gbl_r4_4

  type(op_arg) function op_arg_gbl_r8_0(data, dim, type, access)
    real(8), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_gbl')
    op_arg_gbl_r8_0 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_arg_gbl_r8_0

  type(op_arg) function op_arg_gbl_r8_1(data, dim, type, access)
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_gbl')
    op_arg_gbl_r8_1 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_arg_gbl_r8_1

  type(op_arg) function op_arg_gbl_r8_2(data, dim, type, access)
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_r8_2 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_arg_gbl_r8_2

  type(op_arg) function op_arg_gbl_r8_3(data, dim, type, access)
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_r8_3 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_arg_gbl_r8_3

  type(op_arg) function op_arg_gbl_r8_4(data, dim, type, access)
    real(8), dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_r8_4 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_arg_gbl_r8_4

  type(op_arg) function op_arg_gbl_l_0(data, dim, type, access)
    logical, intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_arg_gbl')
    op_arg_gbl_l_0 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_arg_gbl_l_0

  type(op_arg) function op_arg_gbl_l_1(data, dim, type, access)
    logical, dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_arg_gbl')
    op_arg_gbl_l_1 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_arg_gbl_l_1

  type(op_arg) function op_arg_gbl_l_2(data, dim, type, access)
    logical, dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_l_2 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_arg_gbl_l_2

  type(op_arg) function op_arg_gbl_l_3(data, dim, type, access)
    logical, dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_l_3 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_arg_gbl_l_3

  type(op_arg) function op_arg_gbl_l_4(data, dim, type, access)
    logical, dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_gbl')
    op_arg_gbl_l_4 = op_arg_gbl_c(c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_arg_gbl_l_4

  type(op_arg) function op_opt_arg_gbl_i4_0(opt, data, dim, type, access)
    logical, intent(in) :: opt
    integer(4), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_gbl')
    op_opt_arg_gbl_i4_0 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_i4_0

  type(op_arg) function op_opt_arg_gbl_i4_1(opt, data, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_gbl')
    op_opt_arg_gbl_i4_1 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_i4_1

  type(op_arg) function op_opt_arg_gbl_i4_2(opt, data, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_i4_2 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_i4_2

  type(op_arg) function op_opt_arg_gbl_i4_3(opt, data, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_i4_3 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_i4_3

  type(op_arg) function op_opt_arg_gbl_i4_4(opt, data, dim, type, access)
    logical, intent(in) :: opt
    integer(4), dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'integer(4)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_i4_4 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('integer(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_i4_4

  type(op_arg) function op_opt_arg_gbl_r4_0(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(4), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_gbl')
    op_opt_arg_gbl_r4_0 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_r4_0

  type(op_arg) function op_opt_arg_gbl_r4_1(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_gbl')
    op_opt_arg_gbl_r4_1 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_r4_1

  type(op_arg) function op_opt_arg_gbl_r4_2(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_r4_2 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_r4_2

  type(op_arg) function op_opt_arg_gbl_r4_3(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_r4_3 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_r4_3

  type(op_arg) function op_opt_arg_gbl_r4_4(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(4), dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(4)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_r4_4 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(4)'), &
                                 4_c_int, access - 1)
  end function op_opt_arg_gbl_r4_4

  type(op_arg) function op_opt_arg_gbl_r8_0(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(8), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_gbl')
    op_opt_arg_gbl_r8_0 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_opt_arg_gbl_r8_0

  type(op_arg) function op_opt_arg_gbl_r8_1(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_gbl')
    op_opt_arg_gbl_r8_1 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_opt_arg_gbl_r8_1

  type(op_arg) function op_opt_arg_gbl_r8_2(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_r8_2 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_opt_arg_gbl_r8_2

  type(op_arg) function op_opt_arg_gbl_r8_3(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_r8_3 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_opt_arg_gbl_r8_3

  type(op_arg) function op_opt_arg_gbl_r8_4(opt, data, dim, type, access)
    logical, intent(in) :: opt
    real(8), dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'real(8)', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_r8_4 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('real(8)'), &
                                 8_c_int, access - 1)
  end function op_opt_arg_gbl_r8_4

  type(op_arg) function op_opt_arg_gbl_l_0(opt, data, dim, type, access)
    logical, intent(in) :: opt
    logical, intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_opt_arg_gbl')
    op_opt_arg_gbl_l_0 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_opt_arg_gbl_l_0

  type(op_arg) function op_opt_arg_gbl_l_1(opt, data, dim, type, access)
    logical, intent(in) :: opt
    logical, dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_opt_arg_gbl')
    op_opt_arg_gbl_l_1 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_opt_arg_gbl_l_1

  type(op_arg) function op_opt_arg_gbl_l_2(opt, data, dim, type, access)
    logical, intent(in) :: opt
    logical, dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_l_2 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_opt_arg_gbl_l_2

  type(op_arg) function op_opt_arg_gbl_l_3(opt, data, dim, type, access)
    logical, intent(in) :: opt
    logical, dimension(:, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_l_3 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_opt_arg_gbl_l_3

  type(op_arg) function op_opt_arg_gbl_l_4(opt, data, dim, type, access)
    logical, intent(in) :: opt
    logical, dimension(:, :, :, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: access
    call op2_check_type(type, 'logical', 'op_opt_arg_gbl')
    call op2_require_contiguous(is_contiguous(data), 'op_opt_arg_gbl')
    op_opt_arg_gbl_l_4 = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('logical'), &
                                 int(storage_size(.true.) / 8, c_int), access - 1)
  end function op_opt_arg_gbl_l_4

  type(op_arg) function op_arg_info_i4_0(data, dim, type, ref)
    integer(4), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'integer(4)', 'op_arg_info')
    op_arg_info_i4_0 = op_arg_info_c(c_loc(data), dim, op2_c_string('integer(4)'), 4_c_int, ref - 1)
  end function op_arg_info_i4_0

  type(op_arg) function op_arg_info_i4_1(data, dim, type, ref)
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'integer(4)', 'op_arg_info')
    op_arg_info_i4_1 = op_arg_info_c(c_loc(data), dim, op2_c_string('integer(4)'), 4_c_int, ref - 1)
  end function op_arg_info_i4_1

  type(op_arg) function op_arg_info_i4_2(data, dim, type, ref)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'integer(4)', 'op_arg_info')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_info')
    op_arg_info_i4_2 = op_arg_info_c(c_loc(data), dim, op2_c_string('integer(4)'), 4_c_int, ref - 1)
  end function op_arg_info_i4_2

  type(op_arg) function op_arg_info_r4_0(data, dim, type, ref)
    real(4), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'real(4)', 'op_arg_info')
    op_arg_info_r4_0 = op_arg_info_c(c_loc(data), dim, op2_c_string('real(4)'), 4_c_int, ref - 1)
  end function op_arg_info_r4_0

  type(op_arg) function op_arg_info_r4_1(data, dim, type, ref)
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'real(4)', 'op_arg_info')
    op_arg_info_r4_1 = op_arg_info_c(c_loc(data), dim, op2_c_string('real(4)'), 4_c_int, ref - 1)
  end function op_arg_info_r4_1

  type(op_arg) function op_arg_info_r4_2(data, dim, type, ref)
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'real(4)', 'op_arg_info')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_info')
    op_arg_info_r4_2 = op_arg_info_c(c_loc(data), dim, op2_c_string('real(4)'), 4_c_int, ref - 1)
  end function op_arg_info_r4_2

  type(op_arg) function op_arg_info_r8_0(data, dim, type, ref)
    real(8), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'real(8)', 'op_arg_info')
    op_arg_info_r8_0 = op_arg_info_c(c_loc(data), dim, op2_c_string('real(8)'), 8_c_int, ref - 1)
  end function op_arg_info_r8_0

  type(op_arg) function op_arg_info_r8_1(data, dim, type, ref)
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'real(8)', 'op_arg_info')
    op_arg_info_r8_1 = op_arg_info_c(c_loc(data), dim, op2_c_string('real(8)'), 8_c_int, ref - 1)
  end function op_arg_info_r8_1

  type(op_arg) function op_arg_info_r8_2(data, dim, type, ref)
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'real(8)', 'op_arg_info')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_info')
    op_arg_info_r8_2 = op_arg_info_c(c_loc(data), dim, op2_c_string('real(8)'), 8_c_int, ref - 1)
  end function op_arg_info_r8_2

  type(op_arg) function op_arg_info_l_0(data, dim, type, ref)
    logical, intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'logical', 'op_arg_info')
    op_arg_info_l_0 = op_arg_info_c(c_loc(data), dim, op2_c_string('logical'), int(storage_size(.true.) / 8, c_int), ref - 1)
  end function op_arg_info_l_0

  type(op_arg) function op_arg_info_l_1(data, dim, type, ref)
    logical, dimension(*), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'logical', 'op_arg_info')
    op_arg_info_l_1 = op_arg_info_c(c_loc(data), dim, op2_c_string('logical'), int(storage_size(.true.) / 8, c_int), ref - 1)
  end function op_arg_info_l_1

  type(op_arg) function op_arg_info_l_2(data, dim, type, ref)
    logical, dimension(:, :), intent(in), target :: data
    integer(c_int), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(c_int), intent(in) :: ref
    call op2_check_type(type, 'logical', 'op_arg_info')
    call op2_require_contiguous(is_contiguous(data), 'op_arg_info')
    op_arg_info_l_2 = op_arg_info_c(c_loc(data), dim, op2_c_string('logical'), int(storage_size(.true.) / 8, c_int), ref - 1)
  end function op_arg_info_l_2

  subroutine op_fetch_data_i4_1(dat, data)
    type(op_dat), intent(in) :: dat
    integer(4), dimension(*), intent(inout), target :: data
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_i4_1

  subroutine op_fetch_data_i4_2(dat, data)
    type(op_dat), intent(in) :: dat
    integer(4), dimension(:, :), intent(inout), target :: data
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data')
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_i4_2

  subroutine op_fetch_data_i4_3(dat, data)
    type(op_dat), intent(in) :: dat
    integer(4), dimension(:, :, :), intent(inout), target :: data
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data')
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_i4_3

  subroutine op_fetch_data_r4_1(dat, data)
    type(op_dat), intent(in) :: dat
    real(4), dimension(*), intent(inout), target :: data
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_r4_1

  subroutine op_fetch_data_r4_2(dat, data)
    type(op_dat), intent(in) :: dat
    real(4), dimension(:, :), intent(inout), target :: data
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data')
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_r4_2

  subroutine op_fetch_data_r4_3(dat, data)
    type(op_dat), intent(in) :: dat
    real(4), dimension(:, :, :), intent(inout), target :: data
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data')
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_r4_3

  subroutine op_fetch_data_r8_1(dat, data)
    type(op_dat), intent(in) :: dat
    real(8), dimension(*), intent(inout), target :: data
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_r8_1

  subroutine op_fetch_data_r8_2(dat, data)
    type(op_dat), intent(in) :: dat
    real(8), dimension(:, :), intent(inout), target :: data
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data')
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_r8_2

  subroutine op_fetch_data_r8_3(dat, data)
    type(op_dat), intent(in) :: dat
    real(8), dimension(:, :, :), intent(inout), target :: data
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data')
    call op_fetch_data_c(dat%dataCptr, c_loc(data))
  end subroutine op_fetch_data_r8_3

  subroutine op_fetch_data_idx_i4_1(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    integer(4), dimension(*), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_i4_1

  subroutine op_fetch_data_idx_i4_2(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    integer(4), dimension(:, :), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_idx')
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_i4_2

  subroutine op_fetch_data_idx_i4_3(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    integer(4), dimension(:, :, :), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_idx')
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_i4_3

  subroutine op_fetch_data_idx_r4_1(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    real(4), dimension(*), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_r4_1

  subroutine op_fetch_data_idx_r4_2(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    real(4), dimension(:, :), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_idx')
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_r4_2

  subroutine op_fetch_data_idx_r4_3(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    real(4), dimension(:, :, :), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_idx')
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_r4_3

  subroutine op_fetch_data_idx_r8_1(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    real(8), dimension(*), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_r8_1

  subroutine op_fetch_data_idx_r8_2(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    real(8), dimension(:, :), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_idx')
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_r8_2

  subroutine op_fetch_data_idx_r8_3(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    real(8), dimension(:, :, :), intent(inout), target :: data
    integer(4), intent(in) :: low
    integer(4), intent(in) :: high
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_idx')
    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))
  end subroutine op_fetch_data_idx_r8_3

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_i4_1(set, data)
    type(op_set), intent(in) :: set
    integer(4), dimension(*), intent(in), target :: data
    type(op_dat) :: overlay
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_i4_1 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_i4_1

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_i4_2(set, data)
    type(op_set), intent(in) :: set
    integer(4), dimension(:, :), intent(in), target :: data
    type(op_dat) :: overlay
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat_overlay')
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_i4_2 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_i4_2

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_i4_3(set, data)
    type(op_set), intent(in) :: set
    integer(4), dimension(:, :, :), intent(in), target :: data
    type(op_dat) :: overlay
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat_overlay')
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_i4_3 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_i4_3

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_r4_1(set, data)
    type(op_set), intent(in) :: set
    real(4), dimension(*), intent(in), target :: data
    type(op_dat) :: overlay
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_r4_1 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_r4_1

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_r4_2(set, data)
    type(op_set), intent(in) :: set
    real(4), dimension(:, :), intent(in), target :: data
    type(op_dat) :: overlay
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat_overlay')
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_r4_2 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_r4_2

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_r4_3(set, data)
    type(op_set), intent(in) :: set
    real(4), dimension(:, :, :), intent(in), target :: data
    type(op_dat) :: overlay
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat_overlay')
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_r4_3 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_r4_3

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_r8_1(set, data)
    type(op_set), intent(in) :: set
    real(8), dimension(*), intent(in), target :: data
    type(op_dat) :: overlay
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_r8_1 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_r8_1

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_r8_2(set, data)
    type(op_set), intent(in) :: set
    real(8), dimension(:, :), intent(in), target :: data
    type(op_dat) :: overlay
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat_overlay')
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_r8_2 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_r8_2

  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it
  integer(8) function op_decl_dat_overlay_r8_3(set, data)
    type(op_set), intent(in) :: set
    real(8), dimension(:, :, :), intent(in), target :: data
    type(op_dat) :: overlay
    call op2_require_contiguous(is_contiguous(data), 'op_decl_dat_overlay')
    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))
    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)
    op_decl_dat_overlay_r8_3 = int(overlay%dataPtr%index, 8)
  end function op_decl_dat_overlay_r8_3

  integer(8) function op_reset_data_ptr_i4_1(data, mode)
    integer(4), dimension(*), intent(in), target :: data
    integer(c_int), value :: mode
    op_reset_data_ptr_i4_1 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_i4_1

  integer(8) function op_reset_data_ptr_i4_2(data, mode)
    integer(4), dimension(:, :), intent(in), target :: data
    integer(c_int), value :: mode
    call op2_require_contiguous(is_contiguous(data), 'op_reset_data_ptr')
    op_reset_data_ptr_i4_2 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_i4_2

  integer(8) function op_reset_data_ptr_i4_3(data, mode)
    integer(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), value :: mode
    call op2_require_contiguous(is_contiguous(data), 'op_reset_data_ptr')
    op_reset_data_ptr_i4_3 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_i4_3

  integer(8) function op_reset_data_ptr_r4_1(data, mode)
    real(4), dimension(*), intent(in), target :: data
    integer(c_int), value :: mode
    op_reset_data_ptr_r4_1 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_r4_1

  integer(8) function op_reset_data_ptr_r4_2(data, mode)
    real(4), dimension(:, :), intent(in), target :: data
    integer(c_int), value :: mode
    call op2_require_contiguous(is_contiguous(data), 'op_reset_data_ptr')
    op_reset_data_ptr_r4_2 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_r4_2

  integer(8) function op_reset_data_ptr_r4_3(data, mode)
    real(4), dimension(:, :, :), intent(in), target :: data
    integer(c_int), value :: mode
    call op2_require_contiguous(is_contiguous(data), 'op_reset_data_ptr')
    op_reset_data_ptr_r4_3 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_r4_3

  integer(8) function op_reset_data_ptr_r8_1(data, mode)
    real(8), dimension(*), intent(in), target :: data
    integer(c_int), value :: mode
    op_reset_data_ptr_r8_1 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_r8_1

  integer(8) function op_reset_data_ptr_r8_2(data, mode)
    real(8), dimension(:, :), intent(in), target :: data
    integer(c_int), value :: mode
    call op2_require_contiguous(is_contiguous(data), 'op_reset_data_ptr')
    op_reset_data_ptr_r8_2 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_r8_2

  integer(8) function op_reset_data_ptr_r8_3(data, mode)
    real(8), dimension(:, :, :), intent(in), target :: data
    integer(c_int), value :: mode
    call op2_require_contiguous(is_contiguous(data), 'op_reset_data_ptr')
    op_reset_data_ptr_r8_3 = op_reset_data_ptr_c(c_loc(data), mode)
  end function op_reset_data_ptr_r8_3
!GENERATED-END procedures

end module OP2_Fortran_Declarations
