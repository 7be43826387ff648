! The Fortran airfoil (airfoil.F90) distributed over MPI ranks with OP2's MPI
! library (libop2_mpi), the Fortran counterpart of
! c-examples/airfoil/airfoil_mpi.cpp.
!
!   mpirun -np N airfoil_mpi [MESHFILE] [--iters=N] [--out=FILE] [--diags=N]
!                            [--part=NAME] [--rms=FILE] [--init=op|mpi]
!                            [OP2 options]
!
! The solver, the kernels (airfoil_kernels.F90) and the printed result lines
! are those of airfoil.F90, so the outputs compare textually. The set-up:
!
!   * rank 0 reads MESHFILE (default new_grid.dat; 0-based indices, so maps
!     are declared with op_init_base(diags, 0)) and hands every rank a
!     contiguous block of nodes, cells, edges and boundary edges (n / nranks
!     elements, one more on the first mod(n, nranks) ranks) with MPI_Scatterv;
!     map rows keep their GLOBAL target indices;
!   * each rank declares only its blocks, then op_partition moves every
!     element to its owner and builds the halos;
!   * the rms is normalised by the global cell count; the final q is fetched
!     in the original global order on every rank (op_fetch_data_idx) for the
!     q sums and written with op_print_dat_to_binfile (gathered to rank 0).
!
! --part=NAME chooses the partitioner (default PARMETIS):
!   PARMETIS -> op_partition("PARMETIS", "KWAY", cells, pecell, p_x)
!   GEOMKWAY -> ("PARMETIS", "GEOMKWAY"),  GEOM -> ("PARMETIS", "GEOM"),
!   PTSCOTCH -> ("PTSCOTCH", "KWAY"),      KAHIP -> ("KAHIP", "KWAY"),
!   RANDOM   -> ("RANDOM", "RANDOM"),
!   INERTIAL -> ("INERTIAL", "INERTIAL") with a dim-3 dat of cell centroids,
!   EXTERNAL -> ("EXTERNAL", "EXTERNAL") with an integer dat on cells holding
!               each cell's target rank (the block distribution shifted by one
!               rank, so nearly every cell moves),
!   any other NAME is passed unchanged as the library name (routine "KWAY"):
!   OP2 reports it and keeps the block distribution.
! --rms=FILE: rank 0 writes "iter rms" (C's %.17e) for EVERY iteration.
! --init=op (default): op_init_base initialises MPI and op_exit finalises it;
! --init=mpi: the program calls MPI_Init itself, hands MPI_COMM_WORLD to
!   op_mpi_init_base and calls MPI_Finalize after op_exit.
!
! Only rank 0 prints. Besides airfoil.F90's lines: the block sizes of every
! rank ("ranks: ..."), the partitioner call and "checks: OK|FAILED" (global
! sizes, op_fetch_data against op_fetch_data_idx, every rank gathered the
! same q); the exit status is 1 if a check failed.

program airfoil_mpi

  use mpi
  use OP2_Fortran_Declarations
  use OP2_Fortran_Reference
  use OP2_Fortran_RT_Support
  use airfoil_constants
  use airfoil_kernels
  use airfoil_time_step
  use airfoil_text

  implicit none

  integer, parameter :: root = 0

  character(len=:), allocatable :: mesh_file, out_file, rms_file, part_name, init_mode
  integer(4) :: iters, diags

  ! rank 0's global mesh (zero-sized elsewhere)
  real(8), dimension(:, :), allocatable :: g_x, g_centroid
  integer(4), dimension(:, :), allocatable :: g_cell, g_edge, g_ecell, g_bedge
  integer(4), dimension(:, :), allocatable :: g_becell, g_bound
  integer(4) :: header(5), g_nnode, g_ncell, g_nedge, g_nbedge

  ! this rank's blocks
  integer(4) :: nnode, ncell, nedge, nbedge, cell0
  real(8), dimension(:, :), allocatable, target :: x, q, qold, res, centroid
  real(8), dimension(:), allocatable, target :: adt
  integer(4), dimension(:, :), allocatable, target :: cell, edge, ecell, bedge, becell, bound
  integer(4), dimension(:), allocatable, target :: owner

  type(op_set) :: nodes, edges, bedges, cells
  type(op_map) :: pedge, pecell, pbedge, pbecell, pcell
  type(op_dat) :: p_bound, p_x, p_q, p_qold, p_adt, p_res, p_coords

  character(len=:), allocatable :: part_lib, part_routine, coords_name
  logical :: needs_centroids, needs_owner

  integer :: rank, nranks, ierr, rms_unit
  real(8) :: rms, wall_t1, wall_t2
  real(8), dimension(:, :), allocatable :: qfinal, qmine
  real(8), dimension(4) :: qsum, qsum0
  integer(4) :: iter, c, k, r, bad, any_bad
  integer(4), dimension(4) :: mine
  integer(4), dimension(:), allocatable :: all_sizes
  integer(8) :: sizes(4), expect(4)
  logical :: mpi_done
  character(len=200) :: line

  call parse_command_line()
  call choose_partitioner(part_name)

  if (init_mode == 'mpi') then
    call MPI_Init(ierr)
    call op_mpi_init_base(diags, MPI_COMM_WORLD, MPI_COMM_WORLD, 0)
  else
    call op_init_base(diags, 0)
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  call say('reading in grid ')

  ! ---- the global mesh exists on rank 0 only ---------------------------------
  header = 0
  if (rank == root) then
    call read_mesh(mesh_file, header(1))
    header(2:5) = [g_nnode, g_ncell, g_nedge, g_nbedge]
  else
    allocate (g_x(2, 0), g_cell(4, 0), g_edge(2, 0), g_ecell(2, 0))
    allocate (g_bedge(2, 0), g_becell(1, 0), g_bound(1, 0))
  end if
  call MPI_Bcast(header, 5, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  if (header(1) /= 0) then
    call say('no mesh, stopping')
    call finish(1)
  end if
  g_nnode = header(2)
  g_ncell = header(3)
  g_nedge = header(4)
  g_nbedge = header(5)
  write (line, '(A, I0, A, I0, A, I0, A, I0, A)') ' nodes ', g_nnode, ', cells ', g_ncell, &
    ', edges ', g_nedge, ', boundary edges ', g_nbedge, ' '
  call say(trim(line) // ' ')

  ! cell centroids (x, y, 0) for the inertial partitioner
  if (rank == root .and. needs_centroids) then
    allocate (g_centroid(3, g_ncell))
    g_centroid = 0.0_8
    do c = 1, g_ncell
      do k = 1, 4
        g_centroid(1:2, c) = g_centroid(1:2, c) + 0.25_8 * g_x(:, g_cell(k, c) + 1)
      end do
    end do
  else
    allocate (g_centroid(3, 0))
  end if

  ! ---- this rank's blocks -----------------------------------------------------
  nnode = block_size(g_nnode, rank)
  ncell = block_size(g_ncell, rank)
  nedge = block_size(g_nedge, rank)
  nbedge = block_size(g_nbedge, rank)
  cell0 = block_start(g_ncell, rank)

  call scatter_r8(g_x, g_nnode, 2, x)
  call scatter_i4(g_cell, g_ncell, 4, cell)
  call scatter_i4(g_edge, g_nedge, 2, edge)
  call scatter_i4(g_ecell, g_nedge, 2, ecell)
  call scatter_i4(g_bedge, g_nbedge, 2, bedge)
  call scatter_i4(g_becell, g_nbedge, 1, becell)
  call scatter_i4(g_bound, g_nbedge, 1, bound)
  if (needs_centroids) call scatter_r8(g_centroid, g_ncell, 3, centroid)
  deallocate (g_x, g_cell, g_edge, g_ecell, g_bedge, g_becell, g_bound, g_centroid)

  ! every rank's block sizes, one line per rank
  mine = [nnode, ncell, nedge, nbedge]
  allocate (all_sizes(4 * nranks))
  call MPI_Gather(mine, 4, MPI_INTEGER, all_sizes, 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  do r = 0, nranks - 1
    write (line, '(A, I0, A, I0, A, I0, A, I0, A, I0)') &
      'ranks: nodes, cells, edges, bedges on process ', r, ' = ', all_sizes(4 * r + 1), ', ', &
      all_sizes(4 * r + 2), ', ', all_sizes(4 * r + 3), ', ', all_sizes(4 * r + 4)
    call say(trim(line))
  end do

  call say('initialising flow field ')
  call set_constants()

  allocate (q(4, ncell), qold(4, ncell), res(4, ncell), adt(ncell))
  do c = 1, ncell
    q(:, c) = qinf
  end do
  qold = 0.0_8
  res = 0.0_8
  adt = 0.0_8

  if (needs_owner) then
    allocate (owner(ncell))
    do c = 1, ncell
      owner(c) = int(mod(int(cell0 + c - 1, 8) * nranks / g_ncell + 1, int(nranks, 8)), 4)
    end do
  end if

  ! ---- declarations: local sizes, global map indices ---------------------------
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

  p_coords = p_x
  coords_name = 'p_x'
  if (needs_centroids) then
    call op_decl_dat(cells, 3, 'real(8)', centroid, p_coords, 'p_centroid')
    coords_name = 'p_centroid'
  end if
  if (needs_owner) then
    call op_decl_dat(cells, 1, 'integer(4)', owner, p_coords, 'p_owner')
    coords_name = 'p_owner'
  end if

  call op_decl_const(gam, 1, 'gam')
  call op_decl_const(gm1, 1, 'gm1')
  call op_decl_const(cfl, 1, 'cfl')
  call op_decl_const(eps, 1, 'eps')
  call op_decl_const(mach, 1, 'mach')
  call op_decl_const(alpha, 1, 'alpha')
  call op_decl_const(qinf, 4, 'qinf')

  call say('partitioning with ' // part_name // ': op_partition("' // part_lib // '", "' // &
           part_routine // '", cells, pecell, ' // coords_name // ')')
  call op_partition(part_lib, part_routine, cells, pecell, p_coords)

  if (diags > 1) call op_diagnostic_output()

  ! ---- time marching (as airfoil.F90) --------------------------------------------
  rms_unit = -1
  if (len(rms_file) > 0 .and. rank == root) then
    open (newunit=rms_unit, file=rms_file, status='replace', action='write')
  end if

  call op_timers(wall_t1)

  rms = 0.0_8
  do iter = 1, iters

    call airfoil_step(edges, bedges, cells, pedge, pecell, pbedge, pbecell, pcell, &
                      p_bound, p_x, p_q, p_qold, p_adt, p_res, rms)

    rms = sqrt(rms / real(g_ncell, 8))
    if (rms_unit /= -1) write (rms_unit, '(A)') int_text(iter) // ' ' // e_text(rms, 17)
    if (mod(iter, 100) == 0) then
      call say(' ' // int_text(iter) // '  ' // e_text(rms, 5) // ' ')
    end if
  end do

  call op_timers(wall_t2)
  if (rms_unit /= -1) close (rms_unit)

  ! ---- results -------------------------------------------------------------------
  ! the whole q in the original global order, on every rank
  allocate (qfinal(4, max(g_ncell, 1)))
  call op_fetch_data_idx(p_q, qfinal, 1, g_ncell)
  qsum = 0.0_8
  do c = 1, g_ncell
    do k = 1, 4
      qsum(k) = qsum(k) + qfinal(k, c)
    end do
  end do
  call say(' q sums: ' // e_text(qsum(1), 15) // ' ' // e_text(qsum(2), 15) // ' ' // &
           e_text(qsum(3), 15) // ' ' // e_text(qsum(4), 15) // ' ')

  if (len(out_file) > 0) then
    call op_print_dat_to_binfile(p_q, out_file)
    call say(' wrote final q to ' // out_file // ' ')
  end if

  ! consistency: global sizes, this rank's block from op_fetch_data equals its
  ! slice of the gathered array, every rank gathered the same q
  bad = 0
  sizes = [int(op_get_size(nodes), 8), int(op_get_size(cells), 8), &
           int(op_get_size(edges), 8), int(op_get_size(bedges), 8)]
  expect = [int(g_nnode, 8), int(g_ncell, 8), int(g_nedge, 8), int(g_nbedge, 8)]
  do k = 1, 4
    if (sizes(k) /= expect(k)) then
      write (*, '(A, I0, A, I0, A, I0, A, I0)') 'rank ', rank, ': op_get_size of set ', k, &
        ' is ', sizes(k), ', expected ', expect(k)
      bad = 1
    end if
  end do
  allocate (qmine(4, max(ncell, 1)))
  call op_fetch_data(p_q, qmine)
  if (ncell > 0) then
    if (any(qmine(:, 1:ncell) /= qfinal(:, cell0 + 1:cell0 + ncell))) then
      write (*, '(A, I0, A)') 'rank ', rank, ': op_fetch_data block differs from op_fetch_data_idx'
      bad = 1
    end if
  end if
  qsum0 = qsum
  call MPI_Bcast(qsum0, 4, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  if (any(qsum0 /= qsum)) then
    write (*, '(A, I0, A)') 'rank ', rank, ': gathered q differs from rank 0''s'
    bad = 1
  end if
  call MPI_Allreduce(bad, any_bad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (any_bad == 0) then
    call say('checks: OK')
  else
    call say('checks: FAILED')
  end if

  flush (6)
  call op_timing_output()
  write (line, '(F16.6)') wall_t2 - wall_t1
  call say('Max total runtime = ' // trim(adjustl(line)))

  call finish(any_bad)

contains

  ! op_exit (which finalises MPI if op_init started it), MPI_Finalize if the
  ! program started MPI, then stop with `status`.
  subroutine finish(status)
    integer(4), intent(in) :: status
    flush (6)
    call op_exit()
    call MPI_Finalized(mpi_done, ierr)
    if (.not. mpi_done) call MPI_Finalize(ierr)
    if (status /= 0) error stop 1
    stop
  end subroutine finish

  ! a line on rank 0 only
  subroutine say(text)
    character(len=*), intent(in) :: text
    if (rank == root) write (*, '(A)') text
  end subroutine say

  ! elements of a set of n that rank r holds before partitioning
  integer(4) function block_size(n, r)
    integer(4), intent(in) :: n
    integer, intent(in) :: r
    block_size = n / nranks
    if (r < mod(n, nranks)) block_size = block_size + 1
  end function block_size

  ! 0-based global index of rank r's first element
  integer(4) function block_start(n, r)
    integer(4), intent(in) :: n
    integer, intent(in) :: r
    integer :: j
    block_start = 0
    do j = 0, r - 1
      block_start = block_start + block_size(n, j)
    end do
  end function block_start

  subroutine block_layout(n, dim, counts, displs)
    integer(4), intent(in) :: n, dim
    integer, dimension(:), allocatable, intent(out) :: counts, displs
    integer :: j
    allocate (counts(0:nranks - 1), displs(0:nranks - 1))
    do j = 0, nranks - 1
      counts(j) = dim * block_size(n, j)
      displs(j) = dim * block_start(n, j)
    end do
  end subroutine block_layout

  ! rank 0's rows (dim x n; zero-sized elsewhere) cut into blocks: every rank
  ! receives its own block as local(dim, block_size)
  subroutine scatter_r8(global, n, dim, local)
    real(8), dimension(:, :), intent(in) :: global
    integer(4), intent(in) :: n, dim
    real(8), dimension(:, :), allocatable, intent(out) :: local
    integer, dimension(:), allocatable :: counts, displs
    call block_layout(n, dim, counts, displs)
    allocate (local(dim, block_size(n, rank)))
    call MPI_Scatterv(global, counts, displs, MPI_DOUBLE_PRECISION, local, counts(rank), &
                      MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
  end subroutine scatter_r8

  subroutine scatter_i4(global, n, dim, local)
    integer(4), dimension(:, :), intent(in) :: global
    integer(4), intent(in) :: n, dim
    integer(4), dimension(:, :), allocatable, intent(out) :: local
    integer, dimension(:), allocatable :: counts, displs
    call block_layout(n, dim, counts, displs)
    allocate (local(dim, block_size(n, rank)))
    call MPI_Scatterv(global, counts, displs, MPI_INTEGER, local, counts(rank), &
                      MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  end subroutine scatter_i4

  subroutine choose_partitioner(name)
    character(len=*), intent(in) :: name
    needs_centroids = .false.
    needs_owner = .false.
    part_routine = 'KWAY'
    select case (name)
    case ('PARMETIS')
      part_lib = 'PARMETIS'
    case ('GEOMKWAY')
      part_lib = 'PARMETIS'
      part_routine = 'GEOMKWAY'
    case ('GEOM')
      part_lib = 'PARMETIS'
      part_routine = 'GEOM'
    case ('PTSCOTCH', 'KAHIP')
      part_lib = name
    case ('INERTIAL', 'RANDOM', 'EXTERNAL')
      part_lib = name
      part_routine = name
      needs_centroids = name == 'INERTIAL'
      needs_owner = name == 'EXTERNAL'
    case default
      part_lib = name
    end select
  end subroutine choose_partitioner

  subroutine parse_command_line()
    integer :: i, n, length
    character(len=:), allocatable :: arg

    mesh_file = 'new_grid.dat'
    out_file = ''
    rms_file = ''
    part_name = 'PARMETIS'
    init_mode = 'op'
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
      else if (starts_with(arg, '--rms=')) then
        rms_file = arg(7:)
      else if (starts_with(arg, '--part=')) then
        part_name = arg(8:)
      else if (arg == '--init=op' .or. arg == '--init=mpi') then
        init_mode = arg(8:)
      else if (starts_with(arg, '-')) then
        write (*, '(A)') "unknown option '" // arg // "'"
        error stop 2
      else
        mesh_file = arg
      end if
    end do
  end subroutine parse_command_line

  ! Rank 0: the mesh file (header, x y per node, 4 nodes per cell, n0 n1 c0 c1
  ! per edge, n0 n1 c bound per boundary edge) into the g_* arrays; status 0
  ! on success.
  subroutine read_mesh(path, status)
    character(len=*), intent(in) :: path
    integer(4), intent(out) :: status
    integer :: unit, stat
    integer(4), dimension(:, :), allocatable :: rows

    g_nnode = 0
    g_ncell = 0
    g_nedge = 0
    g_nbedge = 0
    open (newunit=unit, file=path, status='old', action='read', iostat=stat)
    if (stat /= 0) then
      write (*, '(A)') 'cannot open ' // path
      status = 1
      return
    end if
    read (unit, *, iostat=stat) g_nnode, g_ncell, g_nedge, g_nbedge
    if (stat /= 0) then
      write (*, '(A)') 'cannot read the header of ' // path
      status = 1
      close (unit)
      return
    end if
    allocate (g_x(2, g_nnode), g_cell(4, g_ncell), g_edge(2, g_nedge), g_ecell(2, g_nedge))
    allocate (g_bedge(2, g_nbedge), g_becell(1, g_nbedge), g_bound(1, g_nbedge))
    read (unit, *) g_x
    read (unit, *) g_cell
    allocate (rows(4, g_nedge))
    read (unit, *) rows
    g_edge = rows(1:2, :)
    g_ecell = rows(3:4, :)
    deallocate (rows)
    allocate (rows(4, g_nbedge))
    read (unit, *) rows
    g_bedge = rows(1:2, :)
    g_becell = rows(3:3, :)
    g_bound = rows(4:4, :)
    close (unit)
    status = 0
  end subroutine read_mesh

end program airfoil_mpi
