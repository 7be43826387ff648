! A small OP2 Fortran MPI application for the package tests.
!
! Every rank builds the same global mesh, declares only its contiguous block
! of nodes and edges (map rows with GLOBAL 1-based node indices, op_init
! style), calls op_partition("PARMETIS", "KWAY", ...), then runs an indirect
! OP_INC loop over edges (node values read through the map, across the halo)
! and a direct loop over nodes with global OP_INC / OP_MAX reductions. The
! node values fetched in the original global order (op_fetch_data_idx) and
! the reductions must equal plain loops over the global mesh exactly (small
! integers in real(8)). Rank 0 prints PASSED; a rank with a mismatch prints
! it and stops with status 1.
!
! With APP_USES_MPI the program owns MPI: MPI_Init, op_mpi_init(0,
! MPI_COMM_WORLD, MPI_COMM_WORLD), op_exit, MPI_Finalize; otherwise op_init
! starts MPI and op_exit finalises it.
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
#ifdef APP_USES_MPI
  use mpi
#endif
  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use OP2_Fortran_RT_Support
  use app_kernels
  implicit none

  integer(4), parameter :: g_nnode = 1000, g_nedge = 3000
  integer(4) :: g_edge(2, g_nedge)
  real(8) :: g_w(g_nedge), g_x(g_nnode), xr(g_nnode), rr(g_nnode), xall(g_nnode)
  integer(4), allocatable, target :: edge(:, :)
  real(8), allocatable, target :: w(:), x(:), r(:)
  real(8) :: total, total_ref, s, s_ref, m, m_ref
  integer(4) :: e, n, a, b, bad, rank, nranks, nnode, nedge, node0, edge0
  type(op_set) :: nodes, edges
  type(op_map) :: pedge
  type(op_dat) :: p_w, p_x, p_r
#ifdef APP_USES_MPI
  integer :: ierr
#endif

  ! the global mesh (the same on every rank), 1-based node indices
  do e = 1, g_nedge
    g_edge(1, e) = mod(e - 1, g_nnode) + 1
    g_edge(2, e) = mod(7 * (e - 1) + 13, g_nnode) + 1
    g_w(e) = real(mod(e - 1, 5) + 1, 8)
  end do
  do n = 1, g_nnode
    g_x(n) = real(mod((n - 1) * 37, 101) - 50, 8)
  end do

  ! plain loops
  xr = g_x
  rr = 0.0_8
  total_ref = 0.0_8
  s_ref = 0.0_8
  m_ref = -1.0e300_8
  do e = 1, g_nedge
    a = g_edge(1, e)
    b = g_edge(2, e)
    rr(a) = rr(a) + g_w(e) * (xr(a) - xr(b))
    rr(b) = rr(b) - g_w(e) * (xr(a) - xr(b))
    total_ref = total_ref + g_w(e)
  end do
  do n = 1, g_nnode
    xr(n) = xr(n) + rr(n)
    s_ref = s_ref + xr(n)
    m_ref = max(m_ref, xr(n))
  end do

  ! OP2 over MPI
#ifdef APP_USES_MPI
  call MPI_Init(ierr)
  call op_mpi_init(0, MPI_COMM_WORLD, MPI_COMM_WORLD)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
#else
  call op_init(0)
  call op_mpi_rank(rank)
  nranks = op_mpi_size()
#endif

  ! this rank's blocks: n / nranks elements, one more on the first ranks
  call block(g_nnode, nnode, node0)
  call block(g_nedge, nedge, edge0)
  allocate (edge(2, nedge), w(nedge), x(nnode), r(nnode))
  edge = g_edge(:, edge0 + 1:edge0 + nedge)
  w = g_w(edge0 + 1:edge0 + nedge)
  x = g_x(node0 + 1:node0 + nnode)
  r = 0.0_8

  call op_decl_set(nnode, nodes, "nodes")
  call op_decl_set(nedge, edges, "edges")
  call op_decl_map(edges, nodes, 2, edge, pedge, "pedge")
  call op_decl_dat(edges, 1, "real(8)", w, p_w, "p_w")
  call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
  call op_decl_dat(nodes, 1, "real(8)", r, p_r, "p_r")

  call op_partition("PARMETIS", "KWAY", nodes, pedge, p_x)

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
  call op_fetch_data_idx(p_x, xall, 1, g_nnode)

  bad = count(xall /= xr)
  if (total /= total_ref) bad = bad + 1
  if (s /= s_ref) bad = bad + 1
  if (m /= m_ref) bad = bad + 1
  if (op_get_size(nodes) /= g_nnode .or. op_get_size(edges) /= g_nedge) bad = bad + 1
  if (bad /= 0) then
    print '(A,I0,A,3F14.1,A,I0)', "rank ", rank, ": total sum max", total, s, m, "  mismatches ", bad
  end if
  if (rank == 0) print '(A,I0,A,3F14.1)', " ranks ", nranks, "  total sum max", total_ref, s_ref, m_ref
  call op_exit()
#ifdef APP_USES_MPI
  call MPI_Finalize(ierr)
#endif
  if (bad /= 0) then
    print '(A)', "FAILED"
    stop 1
  end if
  if (rank == 0) print '(A)', "PASSED"

contains

  subroutine block(n, size, start)
    integer(4), intent(in) :: n
    integer(4), intent(out) :: size, start
    integer(4) :: k
    start = 0
    do k = 0, rank - 1
      start = start + n / nranks
      if (k < mod(n, nranks)) start = start + 1
    end do
    size = n / nranks
    if (rank < mod(n, nranks)) size = size + 1
  end subroutine block
end program app
