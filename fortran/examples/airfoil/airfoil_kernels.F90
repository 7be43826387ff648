! Kernels of the Fortran airfoil example: the same arithmetic, in the same
! order, as c-examples/airfoil/{save_soln,adt_calc,res_calc,bres_calc,update}.h
! so that a sequential run gives bit-identical results to the C program.
! Each kernel is called by the OP2 library once per set element with the
! addresses of that element's data.
! The modules airfoil_time_step and airfoil_text at the end hold one time
! step of them and the programs' text helpers.

module airfoil_constants

  implicit none

  ! flow constants (declared to OP2 with op_decl_const)
  real(8) :: gam, gm1, cfl, eps, mach, alpha
  real(8), dimension(4) :: qinf

contains

  ! The values of c-examples/airfoil/airfoil_setup.h: scheme parameters come
  ! from single-precision literals, as in OP2's reference airfoil.
  subroutine set_constants()
    real(8) :: p_inf, rho_inf, u_inf, e_inf

    gam = real(1.4_4, 8)
    gm1 = gam - 1.0_8
    cfl = real(0.9_4, 8)
    eps = real(0.05_4, 8)
    mach = real(0.4_4, 8)
    alpha = 3.0_8 * atan(1.0_8) / 45.0_8

    p_inf = 1.0_8
    rho_inf = 1.0_8
    u_inf = sqrt(gam * p_inf / rho_inf) * mach
    e_inf = p_inf / (rho_inf * gm1) + 0.5_8 * u_inf * u_inf
    qinf(1) = rho_inf
    qinf(2) = rho_inf * u_inf
    qinf(3) = 0.0_8
    qinf(4) = rho_inf * e_inf
  end subroutine set_constants

end module airfoil_constants

module airfoil_kernels

  use airfoil_constants

  implicit none

contains

  ! cells, direct: qold = q
  subroutine save_soln(q, qold)
    real(8), dimension(4), intent(in) :: q
    real(8), dimension(4), intent(out) :: qold
    integer :: k
    do k = 1, 4
      qold(k) = q(k)
    end do
  end subroutine save_soln

  ! wave-speed term of the side from a to b
  real(8) function adt_side(a, b, u, v, c)
    real(8), dimension(2), intent(in) :: a, b
    real(8), intent(in) :: u, v, c
    real(8) :: sx, sy
    sx = b(1) - a(1)
    sy = b(2) - a(2)
    adt_side = abs(u * sy - v * sx) + c * sqrt(sx * sx + sy * sy)
  end function adt_side

  ! cells, corners through cell -> node: local time-step scaling
  subroutine adt_calc(x1, x2, x3, x4, q, adt)
    real(8), dimension(2), intent(in) :: x1, x2, x3, x4
    real(8), dimension(4), intent(in) :: q
    real(8), intent(out) :: adt
    real(8) :: rinv, u, v, c, total

    rinv = 1.0_8 / q(1)
    u = rinv * q(2)
    v = rinv * q(3)
    c = sqrt(gam * gm1 * (rinv * q(4) - 0.5_8 * (u * u + v * v)))

    total = adt_side(x1, x2, u, v, c)
    total = total + adt_side(x2, x3, u, v, c)
    total = total + adt_side(x3, x4, u, v, c)
    total = total + adt_side(x4, x1, u, v, c)
    adt = total / cfl
  end subroutine adt_calc

  ! pressure and normal volume flux of one state
  subroutine res_state(q, dy, dx, p, vn)
    real(8), dimension(4), intent(in) :: q
    real(8), intent(in) :: dy, dx
    real(8), intent(out) :: p, vn
    real(8) :: rinv
    rinv = 1.0_8 / q(1)
    p = gm1 * (q(4) - 0.5_8 * rinv * (q(2) * q(2) + q(3) * q(3)))
    vn = rinv * (q(2) * dy - q(3) * dx)
  end subroutine res_state

  ! interior edges: central flux plus scalar dissipation
  subroutine res_calc(x1, x2, q1, q2, adt1, adt2, res1, res2)
    real(8), dimension(2), intent(in) :: x1, x2
    real(8), dimension(4), intent(in) :: q1, q2
    real(8), intent(in) :: adt1, adt2
    real(8), dimension(4), intent(inout) :: res1, res2
    real(8) :: dx, dy, p1, vn1, p2, vn2, mu
    real(8), dimension(4) :: flux
    integer :: k

    dx = x1(1) - x2(1)
    dy = x1(2) - x2(2)

    call res_state(q1, dy, dx, p1, vn1)
    call res_state(q2, dy, dx, p2, vn2)

    mu = 0.5_8 * (adt1 + adt2) * eps

    flux(1) = 0.5_8 * (vn1 * q1(1) + vn2 * q2(1)) + mu * (q1(1) - q2(1))
    flux(2) = 0.5_8 * (vn1 * q1(2) + p1 * dy + vn2 * q2(2) + p2 * dy) + mu * (q1(2) - q2(2))
    flux(3) = 0.5_8 * (vn1 * q1(3) - p1 * dx + vn2 * q2(3) - p2 * dx) + mu * (q1(3) - q2(3))
    flux(4) = 0.5_8 * (vn1 * (q1(4) + p1) + vn2 * (q2(4) + p2)) + mu * (q1(4) - q2(4))

    do k = 1, 4
      res1(k) = res1(k) + flux(k)
      res2(k) = res2(k) - flux(k)
    end do
  end subroutine res_calc

  ! boundary edges: wall (bound 1) or far field
  subroutine bres_calc(x1, x2, q1, adt1, res1, bound)
    real(8), dimension(2), intent(in) :: x1, x2
    real(8), dimension(4), intent(in) :: q1
    real(8), intent(in) :: adt1
    real(8), dimension(4), intent(inout) :: res1
    integer(4), intent(in) :: bound
    real(8) :: dx, dy, rinv, p1, vn1, p2, vn2, mu

    dx = x1(1) - x2(1)
    dy = x1(2) - x2(2)

    rinv = 1.0_8 / q1(1)
    p1 = gm1 * (q1(4) - 0.5_8 * rinv * (q1(2) * q1(2) + q1(3) * q1(3)))

    if (bound == 1) then
      res1(2) = res1(2) + p1 * dy
      res1(3) = res1(3) - p1 * dx
      return
    end if

    vn1 = rinv * (q1(2) * dy - q1(3) * dx)

    rinv = 1.0_8 / qinf(1)
    p2 = gm1 * (qinf(4) - 0.5_8 * rinv * (qinf(2) * qinf(2) + qinf(3) * qinf(3)))
    vn2 = rinv * (qinf(2) * dy - qinf(3) * dx)

    mu = adt1 * eps

    res1(1) = res1(1) + (0.5_8 * (vn1 * q1(1) + vn2 * qinf(1)) + mu * (q1(1) - qinf(1)))
    res1(2) = res1(2) + (0.5_8 * (vn1 * q1(2) + p1 * dy + vn2 * qinf(2) + p2 * dy) + mu * (q1(2) - qinf(2)))
    res1(3) = res1(3) + (0.5_8 * (vn1 * q1(3) - p1 * dx + vn2 * qinf(3) - p2 * dx) + mu * (q1(3) - qinf(3)))
    res1(4) = res1(4) + (0.5_8 * (vn1 * (q1(4) + p1) + vn2 * (qinf(4) + p2)) + mu * (q1(4) - qinf(4)))
  end subroutine bres_calc

  ! cells, direct: q = qold - res/adt, clear res, accumulate rms (OP_INC)
  subroutine update(qold, q, res, adt, rms)
    real(8), dimension(4), intent(in) :: qold
    real(8), dimension(4), intent(out) :: q
    real(8), dimension(4), intent(inout) :: res
    real(8), intent(in) :: adt
    real(8), intent(inout) :: rms
    real(8) :: scale, delta
    integer :: k

    scale = 1.0_8 / adt
    do k = 1, 4
      delta = scale * res(k)
      q(k) = qold(k) - delta
      res(k) = 0.0_8
      rms = rms + delta * delta
    end do
  end subroutine update

end module airfoil_kernels

! One time step of the Fortran airfoil (save_soln, then two stages of
! adt_calc, res_calc, bres_calc and update), shared by airfoil.F90,
! airfoil_mpi.F90 and airfoil_hdf5.F90: they differ only in how the mesh is
! declared and how results are reported. rms returns the sum of squared
! updates of the last stage.
module airfoil_time_step

  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use airfoil_kernels

  implicit none

contains

  subroutine airfoil_step(edges, bedges, cells, pedge, pecell, pbedge, pbecell, pcell, &
                          p_bound, p_x, p_q, p_qold, p_adt, p_res, rms)
    type(op_set), intent(in) :: edges, bedges, cells
    type(op_map), intent(in) :: pedge, pecell, pbedge, pbecell, pcell
    type(op_dat), intent(in) :: p_bound, p_x, p_q, p_qold, p_adt, p_res
    real(8), intent(inout) :: rms
    integer(4) :: stage

    call op_par_loop_2(save_soln, cells, &
      op_arg_dat(p_q, -1, OP_ID, 4, 'real(8)', OP_READ), &
      op_arg_dat(p_qold, -1, OP_ID, 4, 'real(8)', OP_WRITE))

    do stage = 1, 2

      call op_par_loop_6(adt_calc, cells, &
        op_arg_dat(p_x, 1, pcell, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_x, 2, pcell, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_x, 3, pcell, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_x, 4, pcell, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_q, -1, OP_ID, 4, 'real(8)', OP_READ), &
        op_arg_dat(p_adt, -1, OP_ID, 1, 'real(8)', OP_WRITE))

      call op_par_loop_8(res_calc, edges, &
        op_arg_dat(p_x, 1, pedge, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_x, 2, pedge, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_q, 1, pecell, 4, 'real(8)', OP_READ), &
        op_arg_dat(p_q, 2, pecell, 4, 'real(8)', OP_READ), &
        op_arg_dat(p_adt, 1, pecell, 1, 'real(8)', OP_READ), &
        op_arg_dat(p_adt, 2, pecell, 1, 'real(8)', OP_READ), &
        op_arg_dat(p_res, 1, pecell, 4, 'real(8)', OP_INC), &
        op_arg_dat(p_res, 2, pecell, 4, 'real(8)', OP_INC))

      call op_par_loop_6(bres_calc, bedges, &
        op_arg_dat(p_x, 1, pbedge, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_x, 2, pbedge, 2, 'real(8)', OP_READ), &
        op_arg_dat(p_q, 1, pbecell, 4, 'real(8)', OP_READ), &
        op_arg_dat(p_adt, 1, pbecell, 1, 'real(8)', OP_READ), &
        op_arg_dat(p_res, 1, pbecell, 4, 'real(8)', OP_INC), &
        op_arg_dat(p_bound, -1, OP_ID, 1, 'integer(4)', OP_READ))

      rms = 0.0_8
      call op_par_loop_5(update, cells, &
        op_arg_dat(p_qold, -1, OP_ID, 4, 'real(8)', OP_READ), &
        op_arg_dat(p_q, -1, OP_ID, 4, 'real(8)', OP_WRITE), &
        op_arg_dat(p_res, -1, OP_ID, 4, 'real(8)', OP_RW), &
        op_arg_dat(p_adt, -1, OP_ID, 1, 'real(8)', OP_READ), &
        op_arg_gbl(rms, 1, 'real(8)', OP_INC))
    end do
  end subroutine airfoil_step

end module airfoil_time_step

! Text helpers of the Fortran airfoil programs (command-line values, OP2's
! " %d  %10.5e " layout of the rms lines).
module airfoil_text

  implicit none

contains

  logical function starts_with(text, prefix)
    character(len=*), intent(in) :: text, prefix
    starts_with = len(text) >= len(prefix)
    if (starts_with) starts_with = text(1:len(prefix)) == prefix
  end function starts_with

  integer(4) function int_value(text, what)
    character(len=*), intent(in) :: text, what
    integer :: stat
    read (text, *, iostat=stat) int_value
    if (stat /= 0 .or. int_value < 0) then
      write (*, '(A)') 'invalid value for ' // what // ": '" // text // "'"
      error stop 2
    end if
  end function int_value

  function int_text(v) result(s)
    integer(4), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=16) :: buf
    write (buf, '(I0)') v
    s = trim(buf)
  end function int_text

  ! C's "%.<digits>e": d.ddd...e+XX (lower-case e, at least two exponent digits)
  function e_text(v, digits) result(s)
    real(8), intent(in) :: v
    integer, intent(in) :: digits
    character(len=:), allocatable :: s
    character(len=40) :: buf, fmt
    integer :: i
    write (fmt, '(A, I0, A, I0, A)') '(ES', digits + 8, '.', digits, 'E2)'
    if (abs(v) >= 1.0e100_8 .or. (abs(v) < 1.0e-99_8 .and. v /= 0.0_8)) then
      write (fmt, '(A, I0, A, I0, A)') '(ES', digits + 9, '.', digits, 'E3)'
    end if
    write (buf, fmt) v
    s = trim(adjustl(buf))
    i = index(s, 'E')
    if (i > 0) s(i:i) = 'e'
  end function e_text

end module airfoil_text
