! The Fortran airfoil (airfoil.F90) with its mesh read from an HDF5 file in
! OP2's layout through OP2_Fortran_HDF5_Declarations, as OP2's Fortran
! airfoil_hdf5 does. Same kernels (airfoil_kernels.F90), same output.
!
!   airfoil_hdf5 [MESHFILE] [--iters=N] [--out=FILE] [--out-h5=FILE]
!                [--diags=N] [OP2 options]
!
! MESHFILE (default new_grid.h5) holds the sets nodes, edges, bedges, cells,
! the maps pedge, pecell, pbedge, pbecell, pcell (0-based, hence
! op_init_base(diags, 0)) and the dats p_bound and p_x; p_q is read when the
! file has it (OP2's new_grid.h5 does), otherwise q starts at qinf as in
! airfoil.F90. qold, adt and res start as zero temporaries: every kernel
! writes them before reading them, so the file's values would not matter.
! The output lines equal airfoil.F90's on the same mesh: the grid sizes,
! " iter  rms" every 100 steps and the " q sums:" line; --out writes the
! final q with op_print_dat_to_binfile, --out-h5 with op_fetch_data_hdf5_file.
!
! After the declarations op_partition("PARMETIS", "KWAY", cells, pecell, p_x)
! (nothing to do on one node); lines are printed by the root process only.
!
! Link: module objects, -lop2_hdf5 -lop2_seq (or -lop2_openmp) and the
! serial HDF5 library; under MPI (as OP2: the HDF5 functions are in the MPI
! library) -lop2_mpi and a parallel HDF5, e.g.
! -L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5.

module airfoil_hdf5_init

  implicit none

contains

  ! cells, direct: q = qinf (when the file has no p_q)
  subroutine init_q(q, q0)
    real(8), dimension(4), intent(out) :: q
    real(8), dimension(4), intent(in) :: q0
    q = q0
  end subroutine init_q

end module airfoil_hdf5_init

program airfoil_hdf5

  use OP2_Fortran_HDF5_Declarations
  use OP2_Fortran_Reference
  use OP2_Fortran_RT_Support
  use airfoil_constants
  use airfoil_kernels
  use airfoil_time_step
  use airfoil_text
  use airfoil_hdf5_init

  implicit none

  character(len=:), allocatable :: mesh_file, out_file, out_h5_file
  integer(4) :: iters, diags

  integer(4) :: nnode, ncell, nedge, nbedge, stat

  type(op_set) :: nodes, edges, bedges, cells
  type(op_map) :: pedge, pecell, pbedge, pbecell, pcell
  type(op_dat) :: p_bound, p_x, p_q, p_qold, p_adt, p_res

  real(8) :: rms, wall_t1, wall_t2
  real(8), dimension(:, :), allocatable :: qfinal
  real(8), dimension(4) :: qsum
  integer(4) :: iter, c, k, ncell_op
  character(len=200) :: line
  logical :: exists

  call parse_command_line()

  call op_init_base(diags, 0)

  call say('reading in grid ')
  inquire (file=mesh_file, exist=exists)
  if (.not. exists) then
    write (*, '(A)') 'cannot open ' // mesh_file
    error stop 1
  end if

  call op_decl_set_hdf5(nnode, nodes, mesh_file, 'nodes')
  call op_decl_set_hdf5(nedge, edges, mesh_file, 'edges')
  call op_decl_set_hdf5(nbedge, bedges, mesh_file, 'bedges')
  call op_decl_set_hdf5(ncell, cells, mesh_file, 'cells')

  call op_decl_map_hdf5(edges, nodes, 2, pedge, mesh_file, 'pedge', stat)
  call require(stat, 'pedge')
  call op_decl_map_hdf5(edges, cells, 2, pecell, mesh_file, 'pecell', stat)
  call require(stat, 'pecell')
  call op_decl_map_hdf5(bedges, nodes, 2, pbedge, mesh_file, 'pbedge', stat)
  call require(stat, 'pbedge')
  call op_decl_map_hdf5(bedges, cells, 1, pbecell, mesh_file, 'pbecell', stat)
  call require(stat, 'pbecell')
  call op_decl_map_hdf5(cells, nodes, 4, pcell, mesh_file, 'pcell', stat)
  call require(stat, 'pcell')

  call op_decl_dat_hdf5(bedges, 1, p_bound, 'integer(4)', mesh_file, 'p_bound', stat)
  call require(stat, 'p_bound')
  call op_decl_dat_hdf5(nodes, 2, p_x, 'real(8)', mesh_file, 'p_x', stat)
  call require(stat, 'p_x')

  ! the global sizes (under MPI each rank holds a block of each set)
  write (line, '(A, I0, A, I0, A, I0, A, I0, A)') ' nodes ', op_get_size(nodes), ', cells ', &
    op_get_size(cells), ', edges ', op_get_size(edges), ', boundary edges ', op_get_size(bedges), ' '
  call say(trim(line) // ' ')

  call say('initialising flow field ')
  call set_constants()

  call op_decl_dat_hdf5(cells, 4, p_q, 'real(8)', mesh_file, 'p_q', stat)
  if (stat < 0) then
    call op_decl_dat_temp(cells, 4, 'real(8)', p_q, 'p_q')
    call op_par_loop_2(init_q, cells, &
      op_arg_dat(p_q, -1, OP_ID, 4, 'real(8)', OP_WRITE), &
      op_arg_gbl(qinf, 4, 'real(8)', OP_READ))
  end if
  call op_decl_dat_temp(cells, 4, 'real(8)', p_qold, 'p_qold')
  call op_decl_dat_temp(cells, 1, 'real(8)', p_adt, 'p_adt')
  call op_decl_dat_temp(cells, 4, 'real(8)', p_res, 'p_res')

  call op_decl_const(gam, 1, 'gam')
  call op_decl_const(gm1, 1, 'gm1')
  call op_decl_const(cfl, 1, 'cfl')
  call op_decl_const(eps, 1, 'eps')
  call op_decl_const(mach, 1, 'mach')
  call op_decl_const(alpha, 1, 'alpha')
  call op_decl_const(qinf, 4, 'qinf')

  call op_partition('PARMETIS', 'KWAY', cells, pecell, p_x)

  if (diags > 1) call op_diagnostic_output()

  call op_timers(wall_t1)

  rms = 0.0_8
  do iter = 1, iters

    call airfoil_step(edges, bedges, cells, pedge, pecell, pbedge, pbecell, pcell, &
                      p_bound, p_x, p_q, p_qold, p_adt, p_res, rms)

    rms = sqrt(rms / real(op_get_size(cells), 8))
    if (mod(iter, 100) == 0) then
      call say(' ' // int_text(iter) // '  ' // e_text(rms, 5) // ' ')
    end if
  end do

  call op_timers(wall_t2)

  ! bring the final state back and summarise it, in the C program's order
  ncell_op = int(op_get_size(cells), 4)
  allocate (qfinal(4, ncell_op))
  ! (in the original order, gathered from every rank under MPI)
  call op_fetch_data_idx(p_q, qfinal, 1, ncell_op)
  qsum = 0.0_8
  do c = 1, ncell_op
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
  if (len(out_h5_file) > 0) then
    call op_fetch_data_hdf5_file(p_q, out_h5_file)
    call say(' wrote final q to ' // out_h5_file // ' ')
  end if

  flush (6)
  call op_timing_output()
  write (line, '(F16.6)') wall_t2 - wall_t1
  call say('Max total runtime = ' // trim(adjustl(line)))

  call op_exit()

contains

  ! a line on the root process only
  subroutine say(text)
    character(len=*), intent(in) :: text
    if (op_is_root() == 1) write (*, '(A)') text
  end subroutine say

  ! a map or dat the program cannot run without
  subroutine require(status, what)
    integer(4), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status < 0) then
      write (*, '(A)') 'airfoil_hdf5: ' // mesh_file // ' has no dataset ' // what
      error stop 1
    end if
  end subroutine require

  subroutine parse_command_line()
    integer :: i, n, length
    character(len=:), allocatable :: arg

    mesh_file = 'new_grid.h5'
    out_file = ''
    out_h5_file = ''
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
      else if (starts_with(arg, '--out-h5=')) then
        out_h5_file = arg(10:)
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

end program airfoil_hdf5
