! Feature tests of OP2_Fortran_HDF5_Declarations (fortran/
! op2_for_hdf5_declarations.F90) against libop2_hdf5. Each check prints
! "PASS: name" or "FAIL: name ..."; the program ends with "ALL PASSED" (exit
! status 0) or "FAILED: n checks" (error stop 1). It writes its files into
! the current directory. Values are small integers and halves: sums are exact.
!
! Round trips: op_write_const_hdf5 -> op_get_const_hdf5 (i4, i8, r4, r8,
! scalars and arrays); op_dump_to_hdf5 -> op_decl_set_hdf5 (both forms),
! op_decl_set_hdf5_infer_size, op_decl_map_hdf5, op_decl_dat_hdf5 (also into
! another type, and a name with a group); missing datasets (status -1, null
! handles); kernels reading dats and maps read from the file;
! op_fetch_data_hdf5_file (new dataset, then overwrite),
! op_fetch_data_hdf5_file_path, op_fetch_data_hdf5, op_fetch_data_hdf5_file2
! and op_fetch_data_hdf5_file_ptr.

program hdf5_features

  use, intrinsic :: ISO_C_BINDING
  use OP2_Fortran_HDF5_Declarations
  use OP2_Fortran_Reference
  use hdf5_features_kernels

  implicit none

  integer(4), parameter :: nn = 7, ne = 5

  integer :: nfail = 0

  type(op_set) :: nodes, elems
  type(op_map) :: e2n
  type(op_dat) :: p_x, p_id, p_w, p_g

  real(8), dimension(2, nn), target :: x
  integer(4), dimension(nn), target :: id
  real(4), dimension(ne), target :: w
  real(8), dimension(3, ne), target :: g
  integer(4), dimension(2, ne), target :: emap

  integer :: i

  call op_init_base(0, 0)

  do i = 1, nn
    x(1, i) = 0.5_8 * i - 1.0_8
    x(2, i) = 0.25_8 * mod(i * 3, 5)
    id(i) = 10 * i - 3
  end do
  do i = 1, ne
    w(i) = 0.5_4 * i
    g(:, i) = [1.0_8, 2.0_8, 3.0_8] * i
    ! 0-based (op_init_base(0, 0)), as OP2's files hold them
    emap(1, i) = i - 1
    emap(2, i) = mod(i + 2, nn)
  end do

  call op_decl_set(nn, nodes, 'nodes')
  call op_decl_set(ne, elems, 'elems')
  call op_decl_map(elems, nodes, 2, emap, e2n, 'e2n')
  call op_decl_dat(nodes, 2, 'real(8)', x, p_x, 'x')
  call op_decl_dat(nodes, 1, 'integer(4)', id, p_id, 'id')
  call op_decl_dat(elems, 1, 'real(4)', w, p_w, 'w')
  call op_decl_dat(elems, 3, 'real(8)', g, p_g, 'grp/g')

  call test_constants()
  call op_dump_to_hdf5('dump.h5')
  call test_read_back()
  call test_fetch()

  if (nfail == 0) then
    write (*, '(A)') 'ALL PASSED'
  else
    write (*, '(A, I0, A)') 'FAILED: ', nfail, ' checks'
  end if
  call op_exit()
  if (nfail /= 0) error stop 1

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

  subroutine test_constants()
    real(8) :: r8, r8_back
    real(8), dimension(3) :: v8, v8_back
    real(8), dimension(2, 2) :: m8, m8_back
    real(4), dimension(2) :: v4, v4_back
    real(4), dimension(3) :: v4_3
    integer(4) :: i4, i4_back
    integer(8) :: i8, i8_back

    r8 = 1.5_8
    v8 = [0.25_8, -2.0_8, 7.0_8]
    m8 = reshape([1.0_8, 2.0_8, 3.0_8, 4.0_8], [2, 2])
    v4 = [0.5_4, -8.0_4]
    i4 = -42
    i8 = 5000000000_8
    call op_write_const_hdf5('c_r8', 1, 'real(8)', r8, 'consts.h5')
    call op_write_const_hdf5('c_v8', 3, 'double', v8, 'consts.h5')
    call op_write_const_hdf5('c_m8', 4, 'real(8)', m8, 'consts.h5')
    call op_write_const_hdf5('c_v4', 2, 'real(4)', v4, 'consts.h5')
    call op_write_const_hdf5('c_i4', 1, 'integer(4)', i4, 'consts.h5')
    call op_write_const_hdf5('c_i8', 1, 'integer(8)', i8, 'consts.h5')

    r8_back = 0
    v8_back = 0
    m8_back = 0
    v4_back = 0
    i4_back = 0
    i8_back = 0
    call op_get_const_hdf5('c_r8', 1, 'real(8)', r8_back, 'consts.h5')
    call op_get_const_hdf5('c_v8', 3, 'real(8)', v8_back, 'consts.h5')
    call op_get_const_hdf5('c_m8', 4, 'real(8)', m8_back, 'consts.h5')
    call op_get_const_hdf5('c_v4', 2, 'real(4)', v4_back, 'consts.h5')
    call op_get_const_hdf5('c_i4', 1, 'integer(4)', i4_back, 'consts.h5')
    call op_get_const_hdf5('c_i8', 1, 'integer(8)', i8_back, 'consts.h5')
    call check('const real(8) scalar', r8_back == r8)
    call check('const real(8) array', all(v8_back == v8))
    call check('const real(8) rank 2', all(m8_back == m8))
    call check('const real(4) array', all(v4_back == v4))
    call check('const integer(4)', i4_back == i4)
    call check('const integer(8)', i8_back == i8)

    ! a double constant read into single precision (converted)
    v4_3 = 0
    call op_get_const_hdf5('c_v8', 3, 'real(4)', v4_3, 'consts.h5')
    call check('const double read as real(4)', all(v4_3 == real(v8, 4)))
  end subroutine test_constants

  subroutine test_read_back()
    type(op_set) :: nodes2, elems2, nodes3
    type(op_map) :: e2n2, nomap
    type(op_dat) :: x2, id2, w2, g2, xf, nodat
    integer(4) :: n, n3, stat
    integer(4), dimension(:, :), pointer :: mvals
    real(8), dimension(2, nn) :: xb
    integer(4), dimension(nn) :: idb
    real(4), dimension(ne) :: wb
    real(8), dimension(3, ne) :: gb
    real(4), dimension(2, nn) :: xfb
    real(8) :: s, s_ref

    n = -5
    call op_decl_set_hdf5(n, nodes2, 'dump.h5', 'nodes')
    call check('op_decl_set_hdf5 with size', n == nn .and. op_get_size(nodes2) == nn)
    call op_decl_set_hdf5(elems2, 'dump.h5', 'elems')
    call check('op_decl_set_hdf5 without size', associated(elems2%setPtr))
    if (associated(elems2%setPtr)) call check('set size from the file', elems2%setPtr%size == ne)
    call op_decl_set_hdf5_infer_size(n3, nodes3, 'dump.h5', 'nodes_inferred', 'x')
    call check('op_decl_set_hdf5_infer_size', n3 == nn)

    call op_decl_map_hdf5(elems2, nodes2, 2, e2n2, 'dump.h5', 'e2n', stat)
    call check('op_decl_map_hdf5 status', stat == ne .and. associated(e2n2%mapPtr))
    if (associated(e2n2%mapPtr)) then
      call c_f_pointer(e2n2%mapPtr%map, mvals, [2, ne])
      call check('map values', all(mvals == emap) .and. e2n2%mapPtr%dim == 2)
    end if

    call op_decl_dat_hdf5(nodes2, 2, x2, 'real(8)', 'dump.h5', 'x', stat)
    call check('op_decl_dat_hdf5 status', stat == nn .and. associated(x2%dataPtr))
    call op_decl_dat_hdf5(nodes2, 1, id2, 'integer(4)', 'dump.h5', 'id', stat)
    call op_decl_dat_hdf5(elems2, 1, w2, 'real(4)', 'dump.h5', 'w')
    call op_decl_dat_hdf5(elems2, 3, g2, 'real(8)', 'dump.h5', 'grp/g')
    call op_fetch_data(x2, xb)
    call op_fetch_data(id2, idb)
    call op_fetch_data(w2, wb)
    call op_fetch_data(g2, gb)
    call check('real(8) dat values', all(xb == x))
    call check('integer(4) dat values', stat == nn .and. all(idb == id))
    call check('real(4) dat values', w2%status == ne .and. all(wb == w))
    call check('dat in a group', g2%status == ne .and. all(gb == g))
    if (associated(x2%dataPtr)) call check('dat struct', x2%dataPtr%dim == 2 .and. x2%dataPtr%size == 16)

    ! a double dataset held as real(4)
    call op_decl_dat_hdf5(nodes2, 2, xf, 'real(4)', 'dump.h5', 'x', stat)
    call op_fetch_data(xf, xfb)
    call check('double dataset as real(4)', stat == nn .and. all(xfb == real(x, 4)))

    ! missing datasets: status -1 and null handles
    call op_decl_dat_hdf5(nodes2, 1, nodat, 'real(8)', 'dump.h5', 'no_such_dat', stat)
    call check('missing dat', stat == -1 .and. .not. associated(nodat%dataPtr) .and. &
                               .not. c_associated(nodat%dataCptr) .and. nodat%status == -1)
    call op_decl_map_hdf5(elems2, nodes2, 2, nomap, 'dump.h5', 'no_such_map', stat)
    call check('missing map', stat == -1 .and. .not. associated(nomap%mapPtr) .and. &
                               .not. c_associated(nomap%mapCptr))

    ! kernels see the values read, directly and through the map read
    s = 0
    call op_par_loop_2(sum_x, nodes2, &
      op_arg_dat(x2, -1, OP_ID, 2, 'real(8)', OP_READ), &
      op_arg_gbl(s, 1, 'real(8)', OP_INC))
    call check('direct loop over read dats', s == sum(x(1, :)) + 10.0_8 * sum(x(2, :)))
    s = 0
    call op_par_loop_4(sum_ends, elems2, &
      op_arg_dat(x2, 1, e2n2, 2, 'real(8)', OP_READ), &
      op_arg_dat(x2, 2, e2n2, 2, 'real(8)', OP_READ), &
      op_arg_dat(w2, -1, OP_ID, 1, 'real(4)', OP_READ), &
      op_arg_gbl(s, 1, 'real(8)', OP_INC))
    s_ref = 0
    do i = 1, ne
      s_ref = s_ref + real(w(i), 8) * (x(1, emap(1, i) + 1) + 2.0_8 * x(1, emap(2, i) + 1))
    end do
    call check('indirect loop through the map read', s == s_ref)

    ! a changed dat written over its own dataset, then a copy under a path
    call op_par_loop_2(scale_x, nodes2, &
      op_arg_dat(x2, -1, OP_ID, 2, 'real(8)', OP_RW), &
      op_arg_dat(id2, -1, OP_ID, 1, 'integer(4)', OP_READ))
    call op_fetch_data_hdf5_file(x2, 'out.h5')
    call op_fetch_data_hdf5_file_path(x2, 'out.h5', 'copies/x')
    call op_fetch_data_hdf5(id2, 'out.h5', 'copies/id')
    call op_par_loop_2(scale_x, nodes2, &
      op_arg_dat(x2, -1, OP_ID, 2, 'real(8)', OP_RW), &
      op_arg_dat(id2, -1, OP_ID, 1, 'integer(4)', OP_READ))
    call op_fetch_data_hdf5_file(x2, 'out.h5')
  end subroutine test_read_back

  subroutine test_fetch()
    type(op_set) :: nodes4
    type(op_dat) :: xo, xc, ic, xp, ip
    real(8), dimension(2, nn) :: xb, x1, x2
    integer(4), dimension(nn) :: idb
    integer(4) :: n, stat

    do i = 1, nn
      x1(:, i) = 2.0_8 * x(:, i) + real(id(i), 8)
      x2(:, i) = 2.0_8 * x1(:, i) + real(id(i), 8)
    end do
    call op_decl_set_hdf5_infer_size(n, nodes4, 'out.h5', 'nodes_out', 'x')
    call check('infer size from a fetched dat', n == nn)
    call op_decl_dat_hdf5(nodes4, 2, xo, 'real(8)', 'out.h5', 'x', stat)
    call op_fetch_data(xo, xb)
    call check('op_fetch_data_hdf5_file overwrites', stat == nn .and. all(xb == x2))
    call op_decl_dat_hdf5(nodes4, 2, xc, 'real(8)', 'out.h5', 'copies/x', stat)
    call op_fetch_data(xc, xb)
    call check('op_fetch_data_hdf5_file_path', stat == nn .and. all(xb == x1))
    call op_decl_dat_hdf5(nodes4, 1, ic, 'integer(4)', 'out.h5', 'copies/id', stat)
    call op_fetch_data(ic, idb)
    call check('op_fetch_data_hdf5', stat == nn .and. all(idb == id))

    ! by the arrays given to op_decl_dat
    call op_fetch_data_hdf5_file_ptr(x, 'ptr.h5')
    call op_fetch_data_hdf5_file2(id, 'ptr.h5')
    call op_decl_dat_hdf5(nodes4, 2, xp, 'real(8)', 'ptr.h5', 'x', stat)
    call op_fetch_data(xp, xb)
    call check('op_fetch_data_hdf5_file_ptr', stat == nn .and. all(xb == x))
    call op_decl_dat_hdf5(nodes4, 1, ip, 'integer(4)', 'ptr.h5', 'id', stat)
    call op_fetch_data(ip, idb)
    call check('op_fetch_data_hdf5_file2', stat == nn .and. all(idb == id))
  end subroutine test_fetch

end program hdf5_features
