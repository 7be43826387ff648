! Fortran version of c-examples/airfoil/airfoil.cpp (2D inviscid flow around
! a NACA 0012 section) through OP2's Fortran API.
!
!   airfoil [MESHFILE] [--iters=N] [--out=FILE] [--diags=N] [OP2 options]
!
! MESHFILE (default new_grid.dat) is the text format of c-examples/README.md
! with 0-based indices, so OP2 is initialised with op_init_base(diags, 0).
! Output lines equal the C program's on the same mesh with a sequential
! library: " iter  rms" every 100 steps in C's " %d  %10.5e " layout and the
! " q sums:" line in "%.15e" layout; --out writes the final q with
! op_print_dat_to_binfile.

program airfoil

  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use OP2_Fortran_RT_Support
  use airfoil_constants
  use airfoil_kernels
  use airfoil_time_step
  use airfoil_text

  implicit none

  character(len=:), allocatable :: mesh_file, out_file
  integer(4) :: iters, diags

  integer(4) :: nnode, ncell, nedge, nbedge
  real(8), dimension(:, :), allocatable, target :: x, q, qold, res
  real(8), dimension(:), allocatable, target :: adt
  integer(4), dimension(:, :), allocatable, target :: cell, edge, ecell, bedge
  integer(4), dimension(:), allocatable, target :: becell, bound

  type(op_set) :: nodes, edges, bedges, cells
  type(op_map) :: pedge, pecell, pbedge, pbecell, pcell
  type(op_dat) :: p_bound, p_x, p_q, p_qold, p_adt, p_res

  real(8) :: rms, wall_t1, wall_t2
  real(8), dimension(:, :), allocatable :: qfinal
  real(8), dimension(4) :: qsum
  integer(4) :: iter, c, k, ncell_op
  character(len=200) :: line

  call parse_command_line()

  call op_init_base(diags, 0)

  write (*, '(A)') 'reading in grid '
  call read_mesh(mesh_file)
  write (line, '(A, I0, A, I0, A, I0, A, I0, A)') ' nodes ', nnode, ', cells ', ncell, ', edges ', nedge, &
    ', boundary edges ', nbedge, ' '
  write (*, '(A)') trim(line) // ' '

  write (*, '(A)') 'initialising flow field '
  call set_constants()

  allocate (q(4, ncell), qold(4, ncell), res(4, ncell), adt(ncell))
  do c = 1, ncell
    q(:, c) = qinf
  end do
  qold = 0.0_8
  res = 0.0_8
  adt = 0.0_8

  call op_decl_set(nnode, nodes, 'nodes')
  call op_decl_set(nedge, edges, 'edges')
  call op_decl_set(nbedge, bedges, 'bedges')
  call op_decl_set(ncell, cells, 'cells')

  call op_decl_map(edges, nodes, 2, edge, pedge, 'pedge')
  call op_decl_map(edges, cells, 2, ecell, pecell, 'pecell')
  call op_decl_map(bedges, nodes, 2, bedge, pbedge, 'pbedge')
  call op_decl_map(bedges, cells, 1, becell, pbecell, 'pbecell')
  call op_decl_map(cells, nodes, 4, cell, pcell, 'pcell')

  call op_decl_dat(bedges, 1, 'integer(4)', bound, p_bound, 'p_bound')
  call op_decl_dat(nodes, 2, 'real(8)', x, p_x, 'p_x')
  call op_decl_dat(cells, 4, 'real(8)', q, p_q, 'p_q')
  call op_decl_dat(cells, 4, 'real(8)', qold, p_qold, 'p_qold')
  call op_decl_dat(cells, 1, 'real(8)', adt, p_adt, 'p_adt')
  call op_decl_dat(cells, 4, 'real(8)', res, p_res, 'p_res')

  call op_decl_const(gam, 1, 'gam')
  call op_decl_const(gm1, 1, 'gm1')
  call op_decl_const(cfl, 1, 'cfl')
  call op_decl_const(eps, 1, 'eps')
  call op_decl_const(mach, 1, 'mach')
  call op_decl_const(alpha, 1, 'alpha')
  call op_decl_const(qinf, 4, 'qinf')

  if (diags > 1) call op_diagnostic_output()

  call op_timers(wall_t1)

  rms = 0.0_8
  do iter = 1, iters

    call airfoil_step(edges, bedges, cells, pedge, pecell, pbedge, pbecell, pcell, &
                      p_bound, p_x, p_q, p_qold, p_adt, p_res, rms)

    rms = sqrt(rms / real(op_get_size(cells), 8))
    if (mod(iter, 100) == 0) then
      write (*, '(A)') ' ' // int_text(iter) // '  ' // e_text(rms, 5) // ' '
    end if
  end do

  call op_timers(wall_t2)

  ! bring the final state back and summarise it, in the C program's order
  ncell_op = int(op_get_size(cells), 4)
  allocate (qfinal(4, ncell_op))
  call op_fetch_data(p_q, qfinal)
  qsum = 0.0_8
  do c = 1, ncell_op
    do k = 1, 4
      qsum(k) = qsum(k) + qfinal(k, c)
    end do
  end do
  write (*, '(A)') ' q sums: ' // e_text(qsum(1), 15) // ' ' // e_text(qsum(2), 15) // ' ' // &
    e_text(qsum(3), 15) // ' ' // e_text(qsum(4), 15) // ' '

  if (len(out_file) > 0) then
    call op_print_dat_to_binfile(p_q, out_file)
    write (*, '(A)') ' wrote final q to ' // out_file // ' '
  end if

  flush (6)
  call op_timing_output()
  write (line, '(F16.6)') wall_t2 - wall_t1
  write (*, '(A)') 'Max total runtime = ' // trim(adjustl(line))

  call op_exit()

contains

  subroutine parse_command_line()
    integer :: i, n, length
    character(len=:), allocatable :: arg

    mesh_file = 'new_grid.dat'
    out_file = ''
    iters = 1000
    diags = 0
    n = command_argument_count()
    do i = 1, n
      call get_command_argument(i, length=length)
      if (allocated(arg)) deallocate (arg)
      allocate (character(len=length) :: arg)
      call get_command_argument(i, arg)
      if (index(arg, 'OP_') > 0) then
        cycle
      else if (starts_with(arg, '--iters=')) then
        iters = int_value(arg(9:), '--iters')
      else if (starts_with(arg, '--diags=')) then
        diags = int_value(arg(9:), '--diags')
      else if (starts_with(arg, '--out=')) then
        out_file = arg(7:)
      else if (starts_with(arg, '-')) then
        write (*, '(A)') "unknown option '" // arg // "'"
        error stop 2
      else
        mesh_file = arg
      end if
    end do
  end subroutine parse_command_line

  ! The mesh file: header, x y per node, 4 nodes per cell, n0 n1 c0 c1 per
  ! edge, n0 n1 c bound per boundary edge.
  subroutine read_mesh(path)
    character(len=*), intent(in) :: path
    integer :: unit, stat
    integer(4), dimension(:, :), allocatable :: rows

    open (newunit=unit, file=path, status='old', action='read', iostat=stat)
    if (stat /= 0) then
      write (*, '(A)') 'cannot open ' // path
      error stop 1
    end if
    read (unit, *) nnode, ncell, nedge, nbedge
    allocate (x(2, nnode), cell(4, ncell), edge(2, nedge), ecell(2, nedge))
    allocate (bedge(2, nbedge), becell(nbedge), bound(nbedge))
    read (unit, *) x
    read (unit, *) cell
    allocate (rows(4, nedge))
    read (unit, *) rows
    edge = rows(1:2, :)
    ecell = rows(3:4, :)
    deallocate (rows)
    allocate (rows(4, nbedge))
    read (unit, *) rows
    bedge = rows(1:2, :)
    becell = rows(3, :)
    bound = rows(4, :)
    close (unit)
  end subroutine read_mesh

end program airfoil
