! Test fixture of tests/tests/fortran_hdf5.rs: an airfoil mesh in the text
! format of c-examples (0-based) declared to OP2 under OP2's airfoil names,
! with q = qinf, written with op_dump_to_hdf5 (OP2's layout: the file
! airfoil_hdf5 reads). The data go through the Fortran module, so this also
! checks op_dump_to_hdf5 from Fortran.
!
!   hdf5_mesh MESH.dat OUT.h5

program hdf5_mesh

  use OP2_Fortran_HDF5_Declarations
  use airfoil_constants

  implicit none

  character(len=256) :: mesh_file, out_file
  integer(4) :: nnode, ncell, nedge, nbedge, unit, stat, c
  real(8), dimension(:, :), allocatable, target :: x, q
  integer(4), dimension(:, :), allocatable, target :: cell, edge, ecell, bedge, rows
  integer(4), dimension(:), allocatable, target :: becell, bound

  type(op_set) :: nodes, edges, bedges, cells
  type(op_map) :: pedge, pecell, pbedge, pbecell, pcell
  type(op_dat) :: p_bound, p_x, p_q

  if (command_argument_count() /= 2) then
    write (*, '(A)') 'usage: hdf5_mesh MESH.dat OUT.h5'
    error stop 2
  end if
  call get_command_argument(1, mesh_file)
  call get_command_argument(2, out_file)

  call op_init_base(0, 0)

  open (newunit=unit, file=trim(mesh_file), status='old', action='read', iostat=stat)
  if (stat /= 0) then
    write (*, '(A)') 'cannot open ' // trim(mesh_file)
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

  call set_constants()
  allocate (q(4, ncell))
  do c = 1, ncell
    q(:, c) = qinf
  end do

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

  call op_dump_to_hdf5(trim(out_file))
  call op_exit()

end program hdf5_mesh
