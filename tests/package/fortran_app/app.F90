! A small OP2 Fortran application for the package tests: an indirect OP_INC
! loop over edges and a direct loop with global OP_INC/OP_MAX reductions,
! checked against plain loops. Small integers in real(8): every sum is exact
! in any order, so the results must match exactly.
module app_kernels
  implicit none
contains
  subroutine edge_flux(w, xa, xb, ra, rb, total)
    real(8), dimension(1) :: w, xa, xb, ra, rb, total
    real(8) :: f
    f = w(1) * (xa(1) - xb(1))
    ra(1) = ra(1) + f
    rb(1) = rb(1) - f
    total(1) = total(1) + w(1)
  end subroutine edge_flux

  subroutine node_update(r, x, s, m)
    real(8), dimension(1) :: r, x, s, m
    x(1) = x(1) + r(1)
    s(1) = s(1) + x(1)
    m(1) = max(m(1), x(1))
  end subroutine node_update
end module app_kernels

program app
  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use app_kernels
  implicit none

  integer(4), parameter :: nnode = 1000, nedge = 3000
  integer(4) :: edge_nodes(2 * nedge)
  real(8) :: w(nedge), x(nnode), r(nnode), xr(nnode), rr(nnode)
  real(8) :: total, total_ref, s, s_ref, m, m_ref
  integer(4) :: e, n, a, b, bad
  type(op_set) :: nodes, edges
  type(op_map) :: pedge
  type(op_dat) :: p_w, p_x, p_r

  do e = 1, nedge                       ! 1-based map entries (op_init)
    edge_nodes(2 * e - 1) = mod(e - 1, nnode) + 1
    edge_nodes(2 * e) = mod(7 * (e - 1) + 13, nnode) + 1
    w(e) = real(mod(e - 1, 5) + 1, 8)
  end do
  do n = 1, nnode
    x(n) = real(mod((n - 1) * 37, 101) - 50, 8)
  end do
  r = 0.0_8
  xr = x
  rr = r

  ! plain loops
  total_ref = 0.0_8
  s_ref = 0.0_8
  m_ref = -1.0e300_8
  do e = 1, nedge
    a = edge_nodes(2 * e - 1)
    b = edge_nodes(2 * e)
    rr(a) = rr(a) + w(e) * (xr(a) - xr(b))
    rr(b) = rr(b) - w(e) * (xr(a) - xr(b))
    total_ref = total_ref + w(e)
  end do
  do n = 1, nnode
    xr(n) = xr(n) + rr(n)
    s_ref = s_ref + xr(n)
    m_ref = max(m_ref, xr(n))
  end do

  ! OP2
  call op_init(0)
  call op_decl_set(nnode, nodes, "nodes")
  call op_decl_set(nedge, edges, "edges")
  call op_decl_map(edges, nodes, 2, edge_nodes, pedge, "pedge")
  call op_decl_dat(edges, 1, "real(8)", w, p_w, "p_w")
  call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
  call op_decl_dat(nodes, 1, "real(8)", r, p_r, "p_r")

  total = 0.0_8
  s = 0.0_8
  m = -1.0e300_8
  call op_par_loop_6(edge_flux, edges, &
       op_arg_dat(p_w, -1, OP_ID, 1, "real(8)", OP_READ), &
       op_arg_dat(p_x, 1, pedge, 1, "real(8)", OP_READ), &
       op_arg_dat(p_x, 2, pedge, 1, "real(8)", OP_READ), &
       op_arg_dat(p_r, 1, pedge, 1, "real(8)", OP_INC), &
       op_arg_dat(p_r, 2, pedge, 1, "real(8)", OP_INC), &
       op_arg_gbl(total, 1, "real(8)", OP_INC))
  call op_par_loop_4(node_update, nodes, &
       op_arg_dat(p_r, -1, OP_ID, 1, "real(8)", OP_READ), &
       op_arg_dat(p_x, -1, OP_ID, 1, "real(8)", OP_RW), &
       op_arg_gbl(s, 1, "real(8)", OP_INC), &
       op_arg_gbl(m, 1, "real(8)", OP_MAX))
  call op_fetch_data(p_x, x)

  bad = count(x /= xr)
  if (total /= total_ref) bad = bad + 1
  if (s /= s_ref) bad = bad + 1
  if (m /= m_ref) bad = bad + 1
  print '(A,3F14.1,A,I0)', " total sum max", total, s, m, "  mismatches ", bad
  call op_exit()
  if (bad == 0) then
    print '(A)', "PASSED"
  else
    print '(A)', "FAILED"
    stop 1
  end if
end program app
