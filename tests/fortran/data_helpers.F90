! OP2's Fortran helpers for reaching library-held data, on one node: overlays
! (op_decl_dat_overlay's number, op_get_data_ptr), op_reset_data_ptr, map
! pointers, op_copy_map_to_fort, op_force_part, the set registry,
! op_get_g_index, op_mpi_get_data, op_get/put_dat_mpi, op_dat_write_index,
! op_print_dat_to_txtfile2 (compared with op_print_dat_to_txtfile by the
! test) and the two switches. Values are checked against plain loops here.
! Prints "PASS: name" / "FAIL: name"; "ALL PASSED" at the end.

program data_helpers

  use, intrinsic :: ISO_C_BINDING
  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use data_helpers_kernels

  implicit none

  integer(4), parameter :: n = 6, h = 4
  integer :: nfail = 0, i
  type(op_set) :: nodes, half, s, none
  type(op_map) :: m
  type(op_dat) :: p_x, p_idx, t
  real(8), dimension(2, n), target :: xarr
  real(8), dimension(2, n) :: got, ref
  integer(4), dimension(2, h), target :: marr
  integer(4), dimension(n), target :: iarr, igot
  integer(8) :: k, addr, a2
  real(8), dimension(:, :), pointer :: ov
  integer(4), dimension(:), pointer :: ip
  type(op_set_core), pointer :: tset

  call op_init(0)
  do i = 1, n
    xarr(1, i) = 10.0_8 * i
    xarr(2, i) = 10.0_8 * i + 1.0_8
    iarr(i) = -1
  end do
  do i = 1, h
    marr(1, i) = i
    marr(2, i) = mod(i + 1, n) + 1
  end do
  call op_decl_set(n, nodes, 'nodes')
  call op_decl_set(h, half, 'half')
  call op_decl_map(half, nodes, 2, marr, m, 'm')
  call op_decl_dat(nodes, 2, 'real(8)', xarr, p_x, 'x')
  call op_decl_dat(nodes, 1, 'integer(4)', iarr, p_idx, 'idx')

  ! overlays: numbered, reached through op_get_data_ptr, sharing storage
  k = op_decl_dat_overlay(half, xarr)
  addr = op_get_data_ptr(k)
  call check('overlay_number', k > 1 .and. addr == op_get_data_ptr(p_x))
  call c_f_pointer(transfer(addr, C_NULL_PTR), ov, [2, h])
  ov(1, 1) = -5.0_8
  ref = xarr
  ref(1, 1) = -5.0_8
  call op_fetch_data(p_x, got)
  call check('overlay_write_seen_by_dat', all(got == ref))
  call op_par_loop_1(double_it, nodes, op_arg_dat(p_x, -1, OP_ID, 2, 'real(8)', OP_RW))
  ref = 2.0_8 * ref
  call check('dat_write_seen_by_overlay', all(ov == ref(:, 1:h)))

  ! op_reset_data_ptr: file the dat under its data's address, then its number
  a2 = op_reset_data_ptr(xarr, 2)
  call check('reset_data_ptr', a2 == addr .and. op_get_data_ptr(a2) == addr &
             .and. op_reset_data_ptr_c(transfer(a2, C_NULL_PTR), 1_c_int) == int(p_x%dataPtr%index, 8))

  ! maps: the library's 0-based values, a 1-based copy that names the map
  call c_f_pointer(transfer(op_get_map_ptr(m), C_NULL_PTR), ip, [2 * h])
  call check('get_map_ptr', all(ip == reshape(marr, [2 * h]) - 1))
  call c_f_pointer(transfer(op_copy_map_to_fort(marr), C_NULL_PTR), ip, [2 * h])
  call check('copy_map_to_fort', all(ip == reshape(marr, [2 * h])))
  call op_force_part(marr)
  call check('force_part', logical(m%mapPtr%force_part))
  call check('reset_map_ptr', op_reset_map_ptr(marr) == op_get_map_ptr(m))

  ! set registry, global index
  call op_register_set(5, half)
  s = op_get_set(5)
  none = op_get_set(9)
  call check('set_registry', c_associated(s%setCptr, half%setCptr) .and. s%setPtr%size == h &
             .and. .not. c_associated(none%setCptr))
  call check('g_index_single_node', op_get_g_index(nodes) == 0)

  ! a copy in the original order
  t = op_mpi_get_data(p_x%dataCptr)
  call c_f_pointer(t%dataPtr%set, tset)
  call c_f_pointer(t%dataPtr%dat, ov, [2, n])
  call op_fetch_data(p_x, got)
  call check('mpi_get_data', tset%size == n .and. t%dataPtr%dim == 2 .and. all(ov == got))
  call op_mpi_free_data(t)
  call check('mpi_free_data', .not. c_associated(t%dataCptr))

  call op_get_dat_mpi(p_x)
  call op_put_dat_mpi(p_x)
  call op_fetch_data(p_x, ref)
  call check('get_put_dat_mpi', all(ref == got))

  call op_dat_write_index(nodes, iarr)
  call op_fetch_data(p_idx, igot)
  call check('dat_write_index', all(igot == [(i, i = 1, n)]))
  call op_print_dat_to_txtfile2(iarr, 'f_idx2.txt')
  call op_print_dat_to_txtfile(p_idx, 'f_idx_ref.txt')

  call op_disable_mpi_reductions(.true.)
  call op_disable_device_execution(.true.)
  call op_par_loop_1(double_it, nodes, op_arg_dat(p_x, -1, OP_ID, 2, 'real(8)', OP_RW))
  call op_disable_mpi_reductions(.false.)
  call op_disable_device_execution(.false.)
  call op_fetch_data(p_x, got)
  call check('disable_switches', all(got == 2.0_8 * ref))

  call op_exit()
  if (nfail == 0) then
    write (*, '(A)') 'ALL PASSED'
  else
    write (*, '(A,I0,A)') 'FAILED: ', nfail, ' checks'
    error stop 1
  end if

contains

  subroutine check(name, ok)
    character(len=*), intent(in) :: name
    logical, intent(in) :: ok
    if (ok) then
      write (*, '(A)') 'PASS: ' // name
    else
      nfail = nfail + 1
      write (*, '(A)') 'FAIL: ' // name
    end if
  end subroutine check

end program data_helpers
