! Feature tests of the op2-rs Fortran API. Each check prints "PASS: name"
! or "FAIL: name ..."; the program ends with "ALL PASSED" (exit status 0) or
! "FAILED: n checks" (error stop 1). Results of loops are compared with the
! same computation done by plain Fortran loops; the data are small integers
! and halves, so floating-point sums are exact in any order.

program features

  use, intrinsic :: ISO_C_BINDING
  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use OP2_Fortran_RT_Support
  use features_kernels

  implicit none

  integer(4), parameter :: nn = 23, nc = 17, mdim = 3

  integer :: nfail = 0

  type(op_set) :: nodes, cells, empty
  type(op_map) :: pcell
  type(op_dat) :: p_xd, p_xf, p_xi, p_w, p_iout, p_dout, p_tmp

  real(8), dimension(:, :), allocatable, target :: xd
  real(4), dimension(:), allocatable, target :: xf
  integer(4), dimension(:), allocatable, target :: xi
  real(8), dimension(:, :, :), allocatable, target :: w
  integer(4), dimension(:, :), allocatable, target :: cmap, iout
  real(8), dimension(:), allocatable, target :: dout

  integer :: i, c, k

  call op_init(0)

  allocate (xd(2, nn), xf(nn), xi(nn), w(2, 2, nn), cmap(mdim, nc), iout(3, nc), dout(nc))
  do i = 1, nn
    xd(1, i) = 0.5_8 * mod(i * 7, 13) - 2.0_8
    xd(2, i) = 0.25_8 * mod(i * 5, 11)
    xf(i) = 0.5_4 * mod(i * 3, 17) - 3.0_4
    xi(i) = mod(i * 11, 29) - 10
    w(:, :, i) = reshape([1.0_8, 2.0_8, 3.0_8, 4.0_8], [2, 2]) * i
  end do
  ! 1-based map (op_init sets maps base 1)
  do c = 1, nc
    do k = 1, mdim
      cmap(k, c) = mod((c - 1) * 3 + (k - 1) * 5, nn) + 1
    end do
  end do
  iout = 0
  dout = 0.0_8

  call op_decl_set(nn, nodes, 'nodes')
  call op_decl_set(nc, cells, 'cells')
  call op_decl_set(0, empty, 'empty')
  call op_decl_map(cells, nodes, mdim, cmap, pcell, 'pcell')
  call op_decl_dat(nodes, 2, 'real(8)', xd, p_xd, 'p_xd')
  call op_decl_dat(nodes, 1, 'real(4)', xf, p_xf, 'p_xf')
  call op_decl_dat(nodes, 1, 'integer(4)', xi, p_xi, 'p_xi')
  call op_decl_dat(nodes, 4, 'real(8)', w, p_w, 'p_w')
  call op_decl_dat(cells, 3, 'integer(4)', iout, p_iout, 'p_iout')
  call op_decl_dat(cells, 1, 'real(8)', dout, p_dout, 'p_dout')
  call op_decl_const(xd(1, 1), 1, 'a_constant')

  call test_layouts()
  call test_queries()
  call test_direct_reductions()
  call test_indirect_reductions()
  call test_empty_set()
  call test_arg_idx()
  call test_optional_args()
  call test_temp_dat()
  call test_fetch()
  call test_raw_array_args()
  call test_arg_info()
  call test_logical_gbl()
  call test_vector_arg()
  call test_array_gbl()
  call test_rank3_dat()
  call test_43_args()
  call test_files()

  call op_exit()

  if (nfail == 0) then
    write (*, '(A)') 'ALL PASSED'
  else
    write (*, '(A, I0, A)') 'FAILED: ', nfail, ' checks'
    error stop 1
  end if

contains

  subroutine check(name, ok, detail)
    character(len=*), intent(in) :: name
    logical, intent(in) :: ok
    character(len=*), intent(in), optional :: detail
    if (ok) then
      write (*, '(A)') 'PASS: ' // name
    else
      nfail = nfail + 1
      if (present(detail)) then
        write (*, '(A)') 'FAIL: ' // name // ' -- ' // detail
      else
        write (*, '(A)') 'FAIL: ' // name
      end if
    end if
    flush (6)
  end subroutine check

  function r8s(v) result(s)
    real(8), intent(in) :: v
    character(len=32) :: s
    write (s, '(ES24.16)') v
  end function r8s

  subroutine test_layouts()
    type(op_set_core) :: s
    type(op_map_core) :: m
    type(op_dat_core) :: d
    type(op_arg) :: a
    type(op_plan) :: p
    call check('sizeof op_set_core == 32', c_sizeof(s) == 32)
    call check('sizeof op_map_core == 72', c_sizeof(m) == 72)
    call check('sizeof op_dat_core == 96', c_sizeof(d) == 96)
    call check('sizeof op_arg == 96', c_sizeof(a) == 96)
    call check('sizeof op_plan == 280', c_sizeof(p) == 280)
    call check('set record fields', nodes%setPtr%size == nn .and. cells%setPtr%size == nc)
    call check('map record fields', pcell%mapPtr%dim == mdim .and. c_associated(pcell%mapPtr%from, cells%setCptr) &
               .and. c_associated(pcell%mapPtr%to, nodes%setCptr))
    call check('dat record fields', p_xd%dataPtr%dim == 2 .and. p_xd%dataPtr%size == 16 .and. &
               c_associated(p_xd%dataPtr%set, nodes%setCptr) .and. p_xf%dataPtr%size == 4)
    call check('OP_ID / OP_GBL dims', OP_ID%mapPtr%dim == 0 .and. OP_GBL%mapPtr%dim == -1)
  end subroutine test_layouts

  subroutine test_queries()
    integer(c_int) :: rank
    call check('op_get_size', op_get_size(nodes) == int(nn, 8) .and. op_get_size(empty) == 0_8)
    call check('get_set_size', get_set_size(nodes) == nn .and. get_set_size(cells%setPtr) == nc)
    call check('get_associated_set_size', get_associated_set_size(p_iout) == nc)
    call op_mpi_rank(rank)
    call check('single process', op_is_root() == 1 .and. op_mpi_size() == 1 .and. rank == 0)
    call check('isCNullPointer', isCNullPointer(C_NULL_PTR) .and. .not. isCNullPointer(nodes%setCptr))
  end subroutine test_queries

  subroutine test_direct_reductions()
    real(8) :: sd, mind, maxd, ed, emind, emaxd
    real(4) :: sf, minf, maxf, ef, eminf, emaxf
    integer(4) :: si, mini, maxi, ei, emini, emaxi

    sd = 1.5_8; mind = 0.25_8; maxd = -7.0_8
    sf = -2.5_4; minf = 100.0_4; maxf = 1.0_4
    si = 7; mini = 3; maxi = -1000
    ed = sd; emind = mind; emaxd = maxd
    ef = sf; eminf = minf; emaxf = maxf
    ei = si; emini = mini; emaxi = maxi
    do i = 1, nn
      call direct_reductions(xd(:, i), xf(i), xi(i), ed, emind, emaxd, ef, eminf, emaxf, ei, emini, emaxi)
    end do

    call op_par_loop_12(direct_reductions, nodes, &
      op_arg_dat(p_xd, -1, OP_ID, 2, 'real(8)', OP_READ), &
      op_arg_dat(p_xf, -1, OP_ID, 1, 'real(4)', OP_READ), &
      op_arg_dat(p_xi, -1, OP_ID, 1, 'integer(4)', OP_READ), &
      op_arg_gbl(sd, 1, 'real(8)', OP_INC), &
      op_arg_gbl(mind, 1, 'real(8)', OP_MIN), &
      op_arg_gbl(maxd, 1, 'real(8)', OP_MAX), &
      op_arg_gbl(sf, 1, 'real(4)', OP_INC), &
      op_arg_gbl(minf, 1, 'real(4)', OP_MIN), &
      op_arg_gbl(maxf, 1, 'real(4)', OP_MAX), &
      op_arg_gbl(si, 1, 'integer(4)', OP_INC), &
      op_arg_gbl(mini, 1, 'integer(4)', OP_MIN), &
      op_arg_gbl(maxi, 1, 'integer(4)', OP_MAX))

    call check('direct real(8) INC', sd == ed, trim(r8s(sd)) // ' vs ' // trim(r8s(ed)))
    call check('direct real(8) MIN', mind == emind, trim(r8s(mind)) // ' vs ' // trim(r8s(emind)))
    call check('direct real(8) MAX', maxd == emaxd, trim(r8s(maxd)) // ' vs ' // trim(r8s(emaxd)))
    call check('direct real(4) INC', sf == ef)
    call check('direct real(4) MIN', minf == eminf)
    call check('direct real(4) MAX', maxf == emaxf)
    call check('direct integer(4) INC', si == ei)
    call check('direct integer(4) MIN', mini == emini)
    call check('direct integer(4) MAX', maxi == emaxi)
  end subroutine test_direct_reductions

  subroutine test_indirect_reductions()
    real(8) :: sd, mind, maxd, ed, emind, emaxd
    real(4) :: sf, minf, maxf, ef, eminf, emaxf
    integer(4) :: si, mini, maxi, ei, emini, emaxi

    sd = -0.5_8; mind = 50.0_8; maxd = -50.0_8
    sf = 4.0_4; minf = -1.0_4; maxf = -100.0_4
    si = -3; mini = 1000; maxi = 9
    ed = sd; emind = mind; emaxd = maxd
    ef = sf; eminf = minf; emaxf = maxf
    ei = si; emini = mini; emaxi = maxi
    do c = 1, nc
      call indirect_reductions(xd(:, cmap(1, c)), xd(:, cmap(2, c)), xf(cmap(3, c)), xi(cmap(1, c)), &
                               ed, emind, emaxd, ef, eminf, emaxf, ei, emini, emaxi)
    end do

    call op_par_loop_13(indirect_reductions, cells, &
      op_arg_dat(p_xd, 1, pcell, 2, 'real(8)', OP_READ), &
      op_arg_dat(p_xd, 2, pcell, 2, 'real(8)', OP_READ), &
      op_arg_dat(p_xf, 3, pcell, 1, 'real(4)', OP_READ), &
      op_arg_dat(p_xi, 1, pcell, 1, 'integer(4)', OP_READ), &
      op_arg_gbl(sd, 1, 'real(8)', OP_INC), &
      op_arg_gbl(mind, 1, 'real(8)', OP_MIN), &
      op_arg_gbl(maxd, 1, 'real(8)', OP_MAX), &
      op_arg_gbl(sf, 1, 'real(4)', OP_INC), &
      op_arg_gbl(minf, 1, 'real(4)', OP_MIN), &
      op_arg_gbl(maxf, 1, 'real(4)', OP_MAX), &
      op_arg_gbl(si, 1, 'integer(4)', OP_INC), &
      op_arg_gbl(mini, 1, 'integer(4)', OP_MIN), &
      op_arg_gbl(maxi, 1, 'integer(4)', OP_MAX))

    call check('indirect real(8) INC', sd == ed, trim(r8s(sd)) // ' vs ' // trim(r8s(ed)))
    call check('indirect real(8) MIN', mind == emind, trim(r8s(mind)) // ' vs ' // trim(r8s(emind)))
    call check('indirect real(8) MAX', maxd == emaxd, trim(r8s(maxd)) // ' vs ' // trim(r8s(emaxd)))
    call check('indirect real(4) INC', sf == ef)
    call check('indirect real(4) MIN', minf == eminf)
    call check('indirect real(4) MAX', maxf == emaxf)
    call check('indirect integer(4) INC', si == ei)
    call check('indirect integer(4) MIN', mini == emini)
    call check('indirect integer(4) MAX', maxi == emaxi)
  end subroutine test_indirect_reductions

  subroutine test_empty_set()
    real(8) :: s
    integer(4) :: v(3)
    s = 2.5_8
    v = [1, 2, 3]
    call op_par_loop_2(count_three, empty, &
      op_arg_gbl(v(1), 1, 'integer(4)', OP_READ), &
      op_arg_gbl(v, 3, 'integer(4)', OP_INC))
    call op_par_loop_3(sum_two, empty, &
      op_arg_gbl(xd(:, 1), 2, 'real(8)', OP_READ), &
      op_arg_gbl(xd(:, 2), 2, 'real(8)', OP_READ), &
      op_arg_gbl(s, 1, 'real(8)', OP_INC))
    call check('loop over an empty set keeps globals', s == 2.5_8 .and. all(v == [1, 2, 3]))
  end subroutine test_empty_set

  subroutine test_arg_idx()
    integer(4), dimension(3, nc) :: got
    logical :: ok
    iout = -1
    call op_par_loop_3(record_indices, cells, &
      op_arg_idx(-1, OP_ID), &
      op_arg_idx(2, pcell), &
      op_arg_dat(p_iout, -1, OP_ID, 3, 'integer(4)', OP_WRITE))
    call op_fetch_data(p_iout, got)
    ok = .true.
    do c = 1, nc
      ok = ok .and. got(1, c) == c .and. got(2, c) == cmap(2, c)
    end do
    call check('op_arg_idx: 1-based element index and map entry', ok)
    ! the raw map-array form names the same map
    call op_par_loop_3(record_indices, cells, &
      op_arg_idx(-1, OP_ID), &
      op_arg_idx(3, cmap), &
      op_arg_dat(p_iout, -1, OP_ID, 3, 'integer(4)', OP_WRITE))
    call op_fetch_data(p_iout, got)
    ok = .true.
    do c = 1, nc
      ok = ok .and. got(1, c) == c .and. got(2, c) == cmap(3, c)
    end do
    call check('op_arg_idx with the map array', ok)
  end subroutine test_arg_idx

  subroutine test_optional_args()
    integer(4), dimension(3, nc) :: got
    real(8) :: g
    g = 0.0_8
    call op_par_loop_4(optional_args, cells, &
      op_opt_arg_dat(.false., p_xd, 1, pcell, 2, 'real(8)', OP_READ), &
      op_opt_arg_dat(.false., p_dout, -1, OP_ID, 1, 'real(8)', OP_READ), &
      op_opt_arg_gbl(.false., g, 1, 'real(8)', OP_INC), &
      op_arg_dat(p_iout, -1, OP_ID, 3, 'integer(4)', OP_WRITE))
    call op_fetch_data(p_iout, got)
    call check('op_opt_arg_dat/op_opt_arg_gbl .false.: kernel gets absent arguments', &
               all(got == 0) .and. g == 0.0_8)
    call op_par_loop_4(optional_args, cells, &
      op_opt_arg_dat(.true., p_xd, 1, pcell, 2, 'real(8)', OP_READ), &
      op_opt_arg_dat(.true., p_dout, -1, OP_ID, 1, 'real(8)', OP_READ), &
      op_opt_arg_gbl(.true., g, 1, 'real(8)', OP_INC), &
      op_arg_dat(p_iout, -1, OP_ID, 3, 'integer(4)', OP_WRITE))
    call op_fetch_data(p_iout, got)
    call check('op_opt_arg_dat/op_opt_arg_gbl .true.: arguments present', &
               all(got == 1) .and. g == real(nc, 8))
  end subroutine test_optional_args

  subroutine test_temp_dat()
    real(8), dimension(2, nc) :: got
    logical :: ok
    integer(c_int) :: r
    call op_decl_dat_temp(cells, 2, 'real(8)', p_tmp, 'p_tmp')
    call op_par_loop_1(add_one, cells, op_arg_dat(p_tmp, -1, OP_ID, 2, 'real(8)', OP_RW))
    call op_fetch_data(p_tmp, got)
    call check('op_decl_dat_temp: zero-initialised', all(got == 1.0_8))
    call op_par_loop_2(fill_from_index, cells, &
      op_arg_idx(-1, OP_ID), &
      op_arg_dat(p_tmp, -1, OP_ID, 2, 'real(8)', OP_WRITE))
    call op_fetch_data(p_tmp, got)
    ok = .true.
    do c = 1, nc
      ok = ok .and. got(1, c) == real(c, 8) .and. got(2, c) == 2.0_8 * c
    end do
    call check('op_decl_dat_temp: written by a loop', ok)
    r = op_free_dat_temp(p_tmp)
    call check('op_free_dat_temp returns 1', r == 1)
    call check('op_free_dat_temp clears the handle', .not. c_associated(p_tmp%dataCptr))
    ! a second temporary with the same name after the first was freed
    call op_decl_dat_temp(cells, 1, 'integer(4)', p_tmp, 'p_tmp')
    r = op_free_dat_temp(p_tmp)
    call check('op_decl_dat_temp again after op_free_dat_temp', r == 1)
  end subroutine test_temp_dat

  subroutine test_fetch()
    real(8), dimension(2, 3) :: part
    real(8), dimension(2, nn) :: all_xd
    real(4), dimension(nn) :: all_xf
    integer(4), dimension(nn) :: all_xi
    call op_fetch_data(p_xd, all_xd)
    call op_fetch_data(p_xf, all_xf)
    call op_fetch_data(p_xi, all_xi)
    call check('op_fetch_data real(8)/real(4)/integer(4)', all(all_xd == xd) .and. all(all_xf == xf) &
               .and. all(all_xi == xi))
    part = -1.0_8
    call op_fetch_data_idx(p_xd, part, 4, 6)
    call check('op_fetch_data_idx: 1-based low..high', all(part == xd(:, 4:6)))
  end subroutine test_fetch

  subroutine test_raw_array_args()
    real(8) :: s1, s2, s3, e
    e = 0.0_8
    do c = 1, nc
      call sum_two(xd(:, cmap(1, c)), xd(:, cmap(3, c)), e)
    end do
    s1 = 0.0_8; s2 = 0.0_8; s3 = 0.0_8
    call op_par_loop_3(sum_two, cells, &
      op_arg_dat(p_xd, 1, pcell, 2, 'real(8)', OP_READ), &
      op_arg_dat(p_xd, 3, pcell, 2, 'real(8)', OP_READ), &
      op_arg_gbl(s1, 1, 'real(8)', OP_INC))
    call op_par_loop_3(sum_two, cells, &
      op_arg_dat(xd, 1, cmap, 2, 'real(8)', OP_READ), &
      op_arg_dat(xd, 3, cmap, 2, 'real(8)', OP_READ), &
      op_arg_gbl(s2, 1, 'real(8)', OP_INC))
    call op_par_loop_3(sum_two, cells, &
      op_arg_dat(xd, 1, pcell, 2, 'real(8)', OP_READ), &
      op_arg_dat(xd, 3, pcell, 2, 'real(8)', OP_READ), &
      op_arg_gbl(s3, 1, 'real(8)', OP_INC))
    call check('op_arg_dat on handles', s1 == e, trim(r8s(s1)) // ' vs ' // trim(r8s(e)))
    call check('op_arg_dat on raw data and map arrays', s2 == e)
    call check('op_arg_dat on raw data with a map handle', s3 == e)
    e = 0.0_8
    do i = 1, nn
      call sum_two(xd(:, i), xd(:, i), e)
    end do
    s1 = 0.0_8
    call op_par_loop_3(sum_two, nodes, &
      op_arg_dat(xd, -1, OP_ID, 2, 'real(8)', OP_READ), &
      op_opt_arg_dat(.true., xd, -1, OP_ID, 2, 'real(8)', OP_READ), &
      op_arg_gbl(s1, 1, 'real(8)', OP_INC))
    call check('op_arg_dat on raw data, direct (OP_ID)', s1 == e)
  end subroutine test_raw_array_args

  subroutine test_arg_info()
    real(8) :: mn, emn
    integer(4) :: loc, eloc
    emn = 1.0e30_8
    eloc = 0
    do i = 1, nn
      call min_with_location(xd(:, i), i, emn, eloc)
    end do
    mn = 1.0e30_8
    loc = 0
    call op_par_loop_4(min_with_location, nodes, &
      op_arg_dat(p_xd, -1, OP_ID, 2, 'real(8)', OP_READ), &
      op_arg_idx(-1, OP_ID), &
      op_arg_gbl(mn, 1, 'real(8)', OP_MIN), &
      op_arg_info(loc, 1, 'integer(4)', 3))
    call check('op_arg_info location of an OP_MIN', mn == emn .and. loc == eloc)
  end subroutine test_arg_info

  subroutine test_logical_gbl()
    integer(4), dimension(3, nc) :: got
    logical :: flag
    flag = .true.
    iout = 0
    call op_par_loop_2(read_logical, cells, &
      op_arg_gbl(flag, 1, 'logical', OP_READ), &
      op_arg_dat(p_iout, -1, OP_ID, 3, 'integer(4)', OP_WRITE))
    call op_fetch_data(p_iout, got)
    call check('logical global OP_READ', all(got(1, :) == 1))
  end subroutine test_logical_gbl

  subroutine test_vector_arg()
    real(8), dimension(nc) :: got
    logical :: ok
    real(8) :: e
    call op_par_loop_2(vector_sum, cells, &
      op_arg_dat(p_xd, -3, pcell, 2, 'real(8)', OP_READ), &
      op_arg_dat(p_dout, -1, OP_ID, 1, 'real(8)', OP_WRITE))
    call op_fetch_data(p_dout, got)
    ok = .true.
    do c = 1, nc
      e = 0.0_8
      do k = 1, 3
        e = e + xd(1, cmap(k, c))
      end do
      ok = ok .and. got(c) == e
    end do
    call check('vector argument (idx -3: all map columns)', ok)
  end subroutine test_vector_arg

  subroutine test_array_gbl()
    integer(4), dimension(3) :: v, e
    v = [5, -5, 0]
    e = v
    do i = 1, nn
      call count_three(xi(i), e)
    end do
    call op_par_loop_2(count_three, nodes, &
      op_arg_dat(p_xi, -1, OP_ID, 1, 'integer(4)', OP_READ), &
      op_arg_gbl(v, 3, 'integer(4)', OP_INC))
    call check('dim-3 integer(4) global OP_INC', all(v == e))
  end subroutine test_array_gbl

  subroutine test_rank3_dat()
    real(8), dimension(2, 2, nn) :: got
    call op_par_loop_1(scale_block, nodes, op_arg_dat(p_w, -1, OP_ID, 4, 'real(8)', OP_RW))
    call op_fetch_data(p_w, got)
    call check('rank-3 op_decl_dat / op_fetch_data', all(got == 2.0_8 * w))
  end subroutine test_rank3_dat

  subroutine test_43_args()
    integer(4), dimension(43) :: cnt
    logical :: ok
    cnt = 0
    call op_par_loop_43(count43, nodes, &
      op_arg_gbl(cnt(1), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(2), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(3), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(4), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(5), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(6), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(7), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(8), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(9), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(10), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(11), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(12), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(13), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(14), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(15), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(16), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(17), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(18), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(19), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(20), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(21), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(22), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(23), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(24), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(25), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(26), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(27), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(28), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(29), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(30), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(31), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(32), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(33), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(34), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(35), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(36), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(37), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(38), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(39), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(40), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(41), 1, 'integer(4)', OP_INC), op_arg_gbl(cnt(42), 1, 'integer(4)', OP_INC), &
      op_arg_gbl(cnt(43), 1, 'integer(4)', OP_INC))
    ok = .true.
    do k = 1, 43
      ok = ok .and. cnt(k) == k * nn
    end do
    call check('op_par_loop_43', ok)
  end subroutine test_43_args

  subroutine test_files()
    integer(8) :: bytes
    logical :: there
    call op_print_dat_to_binfile(p_xd, 'features_xd.bin')
    inquire (file='features_xd.bin', exist=there, size=bytes)
    call check('op_print_dat_to_binfile', there .and. bytes == 8 + nn * 2 * 8)
    call op_print_dat_to_txtfile(p_xi, 'features_xi.txt')
    inquire (file='features_xi.txt', exist=there)
    call check('op_print_dat_to_txtfile', there)
  end subroutine test_files

end program features
