! Kernels of the Fortran feature tests (features.F90). Each is called by the
! OP2 library once per set element with one address per loop argument.

module features_kernels

  use, intrinsic :: ISO_C_BINDING

  implicit none

contains

  ! direct loop over nodes: INC/MIN/MAX of real(8), real(4), integer(4)
  subroutine direct_reductions(xd, xf, xi, sd, mind, maxd, sf, minf, maxf, si, mini, maxi)
    real(8), dimension(2), intent(in) :: xd
    real(4), intent(in) :: xf
    integer(4), intent(in) :: xi
    real(8), intent(inout) :: sd, mind, maxd
    real(4), intent(inout) :: sf, minf, maxf
    integer(4), intent(inout) :: si, mini, maxi
    sd = sd + xd(1) * xd(2)
    mind = min(mind, xd(1))
    maxd = max(maxd, xd(2))
    sf = sf + xf
    minf = min(minf, xf)
    maxf = max(maxf, xf)
    si = si + xi
    mini = min(mini, xi)
    maxi = max(maxi, xi)
  end subroutine direct_reductions

  ! loop over cells reading node data through the cell -> node map
  subroutine indirect_reductions(xd1, xd2, xf3, xi1, sd, mind, maxd, sf, minf, maxf, si, mini, maxi)
    real(8), dimension(2), intent(in) :: xd1, xd2
    real(4), intent(in) :: xf3
    integer(4), intent(in) :: xi1
    real(8), intent(inout) :: sd, mind, maxd
    real(4), intent(inout) :: sf, minf, maxf
    integer(4), intent(inout) :: si, mini, maxi
    sd = sd + xd1(1) * xd2(2)
    mind = min(mind, xd1(1) + xd2(1))
    maxd = max(maxd, xd1(2) - xd2(2))
    sf = sf + xf3
    minf = min(minf, xf3)
    maxf = max(maxf, -xf3)
    si = si + xi1
    mini = min(mini, xi1)
    maxi = max(maxi, 2 * xi1)
  end subroutine indirect_reductions

  ! op_arg_idx: the element's own (1-based) index and a map entry
  subroutine record_indices(own, mapped, out)
    integer(4), intent(in) :: own, mapped
    integer(4), dimension(2), intent(out) :: out
    out(1) = own
    out(2) = mapped
  end subroutine record_indices

  ! optional arguments switched off arrive as absent (NULL) dummies
  subroutine optional_args(a, b, g, out)
    real(8), dimension(2), intent(in), optional :: a
    real(8), intent(in), optional :: b
    real(8), intent(inout), optional :: g
    integer(4), dimension(3), intent(out) :: out
    out = 0
    if (present(a)) out(1) = 1
    if (present(b)) out(2) = 1
    if (present(g)) then
      out(3) = 1
      g = g + 1.0_8
    end if
  end subroutine optional_args

  ! a temporary dat: incremented, then written from the element index
  subroutine add_one(t)
    real(8), dimension(2), intent(inout) :: t
    t(1) = t(1) + 1.0_8
    t(2) = t(2) + 1.0_8
  end subroutine add_one

  subroutine fill_from_index(idx, t)
    integer(4), intent(in) :: idx
    real(8), dimension(2), intent(out) :: t
    t(1) = real(idx, 8)
    t(2) = 2.0_8 * real(idx, 8)
  end subroutine fill_from_index

  ! raw-array and handle forms of op_arg_dat give the same data
  subroutine sum_two(a, b, s)
    real(8), dimension(2), intent(in) :: a, b
    real(8), intent(inout) :: s
    s = s + a(1) + 3.0_8 * b(2)
  end subroutine sum_two

  ! MIN global with location info
  subroutine min_with_location(x, idx, mn, loc)
    real(8), dimension(2), intent(in) :: x
    integer(4), intent(in) :: idx
    real(8), intent(inout) :: mn
    integer(4), intent(inout) :: loc
    if (x(1) < mn) then
      mn = x(1)
      loc = idx
    end if
  end subroutine min_with_location

  ! logical global read
  subroutine read_logical(flag, out)
    logical, intent(in) :: flag
    integer(4), intent(out) :: out
    if (flag) then
      out = 1
    else
      out = 2
    end if
  end subroutine read_logical

  ! vector argument: the addresses of all 3 mapped nodes' data
  subroutine vector_sum(xs, out)
    type(c_ptr), dimension(3), intent(in) :: xs
    real(8), intent(out) :: out
    real(8), dimension(:), pointer :: x
    integer :: k
    out = 0.0_8
    do k = 1, 3
      call c_f_pointer(xs(k), x, [2])
      out = out + x(1)
    end do
  end subroutine vector_sum

  ! array global (dim 3) incremented
  subroutine count_three(xi, v)
    integer(4), intent(in) :: xi
    integer(4), dimension(3), intent(inout) :: v
    v(1) = v(1) + 1
    v(2) = v(2) + xi
    v(3) = v(3) + 2 * xi
  end subroutine count_three

  ! rank-3 declared data, dim 4 per element
  subroutine scale_block(w)
    real(8), dimension(2, 2), intent(inout) :: w
    w = 2.0_8 * w
  end subroutine scale_block

  ! 43 arguments: every global counts the elements
  subroutine count43(c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, &
                     c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, c29, c30, c31, c32, &
                     c33, c34, c35, c36, c37, c38, c39, c40, c41, c42, c43)
    integer(4), intent(inout) :: c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, &
                                 c16, c17, c18, c19, c20, c21, c22, c23, c24, c25, c26, c27, c28, &
                                 c29, c30, c31, c32, c33, c34, c35, c36, c37, c38, c39, c40, c41, &
                                 c42, c43
    c1 = c1 + 1; c2 = c2 + 2; c3 = c3 + 3; c4 = c4 + 4; c5 = c5 + 5; c6 = c6 + 6
    c7 = c7 + 7; c8 = c8 + 8; c9 = c9 + 9; c10 = c10 + 10; c11 = c11 + 11; c12 = c12 + 12
    c13 = c13 + 13; c14 = c14 + 14; c15 = c15 + 15; c16 = c16 + 16; c17 = c17 + 17
    c18 = c18 + 18; c19 = c19 + 19; c20 = c20 + 20; c21 = c21 + 21; c22 = c22 + 22
    c23 = c23 + 23; c24 = c24 + 24; c25 = c25 + 25; c26 = c26 + 26; c27 = c27 + 27
    c28 = c28 + 28; c29 = c29 + 29; c30 = c30 + 30; c31 = c31 + 31; c32 = c32 + 32
    c33 = c33 + 33; c34 = c34 + 34; c35 = c35 + 35; c36 = c36 + 36; c37 = c37 + 37
    c38 = c38 + 38; c39 = c39 + 39; c40 = c40 + 40; c41 = c41 + 41; c42 = c42 + 42
    c43 = c43 + 43
  end subroutine count43

end module features_kernels
