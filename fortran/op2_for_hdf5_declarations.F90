! op2-rs: Fortran API of OP2's HDF5 I/O, module OP2_Fortran_HDF5_Declarations.
!
! OP2's names and argument orders (op2_for_hdf5_declarations.F90 of OP2) over
! the C functions of include/op_hdf5.h. The C side is defined by libop2_hdf5
! (link -lop2_hdf5 before -lop2_seq or -lop2_openmp, plus the serial HDF5
! library) and by libop2_mpi; the other op2-rs libraries do not define it, so
! this module's object only links where HDF5 is linked too. Programs that do
! not use this module never pull its object out of an archive.
!
! The module re-exports OP2_Fortran_Declarations: `use
! OP2_Fortran_HDF5_Declarations` alone gives the whole declarations API, as
! in OP2. The handles filled here are the same op_set/op_map/op_dat as those
! of op_decl_set/op_decl_map/op_decl_dat: the C handle plus a Fortran view of
! the C struct (setPtr/mapPtr/dataPtr); a dat's values live in the library
! (dataPtr%dat) and reach kernels through op_par_loop like any other dat.
!
!   op_decl_set_hdf5([setsize,] set, file, name)
!   op_decl_set_hdf5_infer_size([setsize,] set, file, name, set_dataset_name)
!   op_decl_map_hdf5(from, to, dim, map, file, name [, status])
!   op_decl_dat_hdf5(set, dim, dat, type, file, name [, status])
!   op_get_const_hdf5(name, dim, type, data, file)     data: i4/i8/r4/r8,
!   op_write_const_hdf5(name, dim, type, data, file)   scalar or rank 1/2
!   op_dump_to_hdf5(file)
!   op_fetch_data_hdf5_file(dat, file)
!   op_fetch_data_hdf5_file_path(dat, file, path)      (= op_fetch_data_hdf5)
!   op_fetch_data_hdf5_file2(array, file)              by the array given to
!   op_fetch_data_hdf5_file_ptr(array, file)           op_decl_dat
!
! status (optional here, required in OP2) is the from-set / set size, or -1
! when the dataset is missing (the C library warns and returns NULL; the
! handle is then left null). The maps of a file are 0-based, as OP2 writes
! them: read them after op_init_base(diags, 0), as OP2's Fortran HDF5 apps do.
!
! The type/rank variants between the "generated" markers are written by
! gen_declarations.py; edit that script, not those lines.

module OP2_Fortran_HDF5_Declarations

  use, intrinsic :: ISO_C_BINDING
  use OP2_Fortran_Declarations

  implicit none

  ! ---------------------------------------------------------------------
  ! The C functions (include/op_hdf5.h; the last two are defined by OP2's
  ! libraries without a prototype there). Names as in OP2's module.
  ! ---------------------------------------------------------------------
  interface

    function op_decl_set_hdf5_c(file, name) bind(C, name='op_decl_set_hdf5')
      import :: c_char, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: file
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr) :: op_decl_set_hdf5_c
    end function op_decl_set_hdf5_c

    function op_decl_set_hdf5_infer_size_c(file, name, set_dataset_name) &
        bind(C, name='op_decl_set_hdf5_infer_size')
      import :: c_char, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: file
      character(kind=c_char), dimension(*), intent(in) :: name
      character(kind=c_char), dimension(*), intent(in) :: set_dataset_name
      type(c_ptr) :: op_decl_set_hdf5_infer_size_c
    end function op_decl_set_hdf5_infer_size_c

    function op_decl_map_hdf5_c(from, to, dim, file, name) bind(C, name='op_decl_map_hdf5')
      import :: c_char, c_int, c_ptr
      type(c_ptr), value :: from
      type(c_ptr), value :: to
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*), intent(in) :: file
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr) :: op_decl_map_hdf5_c
    end function op_decl_map_hdf5_c

    function op_decl_dat_hdf5_c(set, dim, type, file, name) bind(C, name='op_decl_dat_hdf5')
      import :: c_char, c_int, c_ptr
      type(c_ptr), value :: set
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*), intent(in) :: type
      character(kind=c_char), dimension(*), intent(in) :: file
      character(kind=c_char), dimension(*), intent(in) :: name
      type(c_ptr) :: op_decl_dat_hdf5_c
    end function op_decl_dat_hdf5_c

    subroutine op_get_const_hdf5_c(name, dim, type, data, file) bind(C, name='op_get_const_hdf5')
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*), intent(in) :: type
      type(c_ptr), value :: data
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine op_get_const_hdf5_c

    subroutine op_write_const_hdf5_c(name, dim, type, data, file) bind(C, name='op_write_const_hdf5')
      import :: c_char, c_int, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*), intent(in) :: type
      type(c_ptr), value :: data
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine op_write_const_hdf5_c

    subroutine op_dump_to_hdf5_c(file) bind(C, name='op_dump_to_hdf5')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine op_dump_to_hdf5_c

    subroutine op_fetch_data_hdf5_file_c(dat, file) bind(C, name='op_fetch_data_hdf5_file')
      import :: c_char, c_ptr
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine op_fetch_data_hdf5_file_c

    subroutine op_fetch_data_hdf5_file_path_c(dat, file, path) bind(C, name='op_fetch_data_hdf5_file_path')
      import :: c_char, c_ptr
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*), intent(in) :: file
      character(kind=c_char), dimension(*), intent(in) :: path
    end subroutine op_fetch_data_hdf5_file_path_c

    subroutine op_fetch_data_hdf5_c(dat, file, path) bind(C, name='op_fetch_data_hdf5')
      import :: c_char, c_ptr
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*), intent(in) :: file
      character(kind=c_char), dimension(*), intent(in) :: path
    end subroutine op_fetch_data_hdf5_c

    subroutine op_fetch_data_hdf5_file_ptr_c(data, file) bind(C, name='op_fetch_data_hdf5_file_ptr')
      import :: c_char, c_ptr
      type(c_ptr), value :: data
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine op_fetch_data_hdf5_file_ptr_c

  end interface

  interface op_decl_set_hdf5
    module procedure op_decl_set_hdf5_noSetSize, op_decl_set_hdf5_setSize
  end interface op_decl_set_hdf5

  interface op_decl_set_hdf5_infer_size
    module procedure op_decl_set_hdf5_infer_noSetSize, op_decl_set_hdf5_infer_setSize
  end interface op_decl_set_hdf5_infer_size

!GENERATED-BEGIN interfaces
  interface op_get_const_hdf5
    module procedure op_get_const_hdf5_i4_0, &
                     op_get_const_hdf5_i4_1, &
                     op_get_const_hdf5_i4_2, &
                     op_get_const_hdf5_i8_0, &
                     op_get_const_hdf5_i8_1, &
                     op_get_const_hdf5_i8_2, &
                     op_get_const_hdf5_r4_0, &
                     op_get_const_hdf5_r4_1, &
                     op_get_const_hdf5_r4_2, &
                     op_get_const_hdf5_r8_0, &
                     op_get_const_hdf5_r8_1, &
                     op_get_const_hdf5_r8_2
  end interface op_get_const_hdf5

  interface op_write_const_hdf5
    module procedure op_write_const_hdf5_i4_0, &
                     op_write_const_hdf5_i4_1, &
                     op_write_const_hdf5_i4_2, &
                     op_write_const_hdf5_i8_0, &
                     op_write_const_hdf5_i8_1, &
                     op_write_const_hdf5_i8_2, &
                     op_write_const_hdf5_r4_0, &
                     op_write_const_hdf5_r4_1, &
                     op_write_const_hdf5_r4_2, &
                     op_write_const_hdf5_r8_0, &
                     op_write_const_hdf5_r8_1, &
                     op_write_const_hdf5_r8_2
  end interface op_write_const_hdf5

  interface op_fetch_data_hdf5_file2
    module procedure op_fetch_data_hdf5_file2_i4_1, &
                     op_fetch_data_hdf5_file2_i4_2, &
                     op_fetch_data_hdf5_file2_i4_3, &
                     op_fetch_data_hdf5_file2_r4_1, &
                     op_fetch_data_hdf5_file2_r4_2, &
                     op_fetch_data_hdf5_file2_r4_3, &
                     op_fetch_data_hdf5_file2_r8_1, &
                     op_fetch_data_hdf5_file2_r8_2, &
                     op_fetch_data_hdf5_file2_r8_3
  end interface op_fetch_data_hdf5_file2

  interface op_fetch_data_hdf5_file_ptr
    module procedure op_fetch_data_hdf5_file2_i4_1, &
                     op_fetch_data_hdf5_file2_i4_2, &
                     op_fetch_data_hdf5_file2_i4_3, &
                     op_fetch_data_hdf5_file2_r4_1, &
                     op_fetch_data_hdf5_file2_r4_2, &
                     op_fetch_data_hdf5_file2_r4_3, &
                     op_fetch_data_hdf5_file2_r8_1, &
                     op_fetch_data_hdf5_file2_r8_2, &
                     op_fetch_data_hdf5_file2_r8_3
  end interface op_fetch_data_hdf5_file_ptr
!GENERATED-END interfaces

  interface op_fetch_data_hdf5
    module procedure op_fetch_data_hdf5_file_path
  end interface op_fetch_data_hdf5


contains

  ! ---------------------------------------------------------------------
  ! Helpers
  ! ---------------------------------------------------------------------

  ! Fortran views of C handles; a NULL handle leaves the view null
  subroutine op2_hdf5_set_view(set)
    type(op_set), intent(inout) :: set
    if (c_associated(set%setCptr)) then
      call c_f_pointer(set%setCptr, set%setPtr)
    else
      nullify (set%setPtr)
    end if
  end subroutine op2_hdf5_set_view

  ! A constant's declaration against the array given: the type string
  ! (informational, as with op_decl_const) and room for dim values.
  subroutine op2_hdf5_check_const(what, name, dim, type, canonical, count, contiguous_data)
    character(len=*), intent(in) :: what
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    character(len=*), intent(in) :: canonical
    integer(8), intent(in) :: count
    logical, intent(in) :: contiguous_data
    character(len=24) :: text
    call op2_check_type(type, canonical, what)
    call op2_require_contiguous(contiguous_data, what)
    if (dim < 1 .or. int(dim, 8) > count) then
      write (text, '(I0, A, I0)') dim, ' > ', count
      if (dim < 1) write (text, '(I0)') dim
      write (*, '(A)') ' OP2 error: ' // what // ': constant "' // trim(name) // '": dim ' // &
        trim(text) // ' (values in the array given)'
      error stop 1
    end if
  end subroutine op2_hdf5_check_const

  ! ---------------------------------------------------------------------
  ! Sets
  ! ---------------------------------------------------------------------

  subroutine op_decl_set_hdf5_noSetSize(set, fileName, setName)
    type(op_set), intent(inout) :: set
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: setName
    set%setCptr = op_decl_set_hdf5_c(op2_c_string(fileName), op2_c_string(setName))
    call op2_hdf5_set_view(set)
  end subroutine op_decl_set_hdf5_noSetSize

  ! setSize: the set's size (-1 if the library returned no set)
  subroutine op_decl_set_hdf5_setSize(setSize, set, fileName, setName)
    integer(idx_l_t), intent(out) :: setSize
    type(op_set), intent(inout) :: set
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: setName
    call op_decl_set_hdf5_noSetSize(set, fileName, setName)
    setSize = -1
    if (associated(set%setPtr)) setSize = set%setPtr%size
  end subroutine op_decl_set_hdf5_setSize

  ! The size is the first dimension of the dataset set_dataset_name.
  subroutine op_decl_set_hdf5_infer_noSetSize(set, fileName, setName, setDatasetName)
    type(op_set), intent(inout) :: set
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: setName
    character(len=*), intent(in) :: setDatasetName
    set%setCptr = op_decl_set_hdf5_infer_size_c(op2_c_string(fileName), op2_c_string(setName), &
                                                op2_c_string(setDatasetName))
    call op2_hdf5_set_view(set)
  end subroutine op_decl_set_hdf5_infer_noSetSize

  subroutine op_decl_set_hdf5_infer_setSize(setSize, set, fileName, setName, setDatasetName)
    integer(idx_l_t), intent(out) :: setSize
    type(op_set), intent(inout) :: set
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: setName
    character(len=*), intent(in) :: setDatasetName
    call op_decl_set_hdf5_infer_noSetSize(set, fileName, setName, setDatasetName)
    setSize = -1
    if (associated(set%setPtr)) setSize = set%setPtr%size
  end subroutine op_decl_set_hdf5_infer_setSize

  ! ---------------------------------------------------------------------
  ! Maps and dats
  ! ---------------------------------------------------------------------

  ! status: the from-set's size, or -1 when the file has no such map (the
  ! library warns; map is then a null handle)
  subroutine op_decl_map_hdf5(from, to, mapdim, map, fileName, mapName, status)
    type(op_set), intent(in) :: from
    type(op_set), intent(in) :: to
    integer(4), intent(in) :: mapdim
    type(op_map), intent(inout) :: map
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: mapName
    integer(c_int), intent(out), optional :: status
    map%mapCptr = op_decl_map_hdf5_c(from%setCptr, to%setCptr, int(mapdim, c_int), &
                                     op2_c_string(fileName), op2_c_string(mapName))
    map%status = -1
    if (c_associated(map%mapCptr)) then
      call c_f_pointer(map%mapCptr, map%mapPtr)
      if (associated(from%setPtr)) map%status = from%setPtr%size
    else
      nullify (map%mapPtr)
    end if
    if (present(status)) status = map%status
  end subroutine op_decl_map_hdf5

  ! type: as for op_decl_dat ('real(8)', 'integer(4)', 'double', ...); it
  ! selects the type the values are held in (the file's type is converted).
  ! status: the set's size, or -1 when the file has no such dat.
  subroutine op_decl_dat_hdf5(set, datdim, dat, typ, fileName, datName, status)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: datdim
    type(op_dat), intent(inout) :: dat
    character(len=*), intent(in) :: typ
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: datName
    integer(c_int), intent(out), optional :: status
    dat%dataCptr = op_decl_dat_hdf5_c(set%setCptr, int(datdim, c_int), op2_c_type(typ), &
                                      op2_c_string(fileName), op2_c_string(datName))
    dat%status = -1
    if (c_associated(dat%dataCptr)) then
      call c_f_pointer(dat%dataCptr, dat%dataPtr)
      if (associated(set%setPtr)) dat%status = set%setPtr%size
    else
      nullify (dat%dataPtr)
    end if
    if (present(status)) status = dat%status
  end subroutine op_decl_dat_hdf5

  ! ---------------------------------------------------------------------
  ! Writing
  ! ---------------------------------------------------------------------

  ! every set, map and dat into a new file (an existing one is replaced)
  subroutine op_dump_to_hdf5(fileName)
    character(len=*), intent(in) :: fileName
    call op_dump_to_hdf5_c(op2_c_string(fileName))
  end subroutine op_dump_to_hdf5

  ! the dat's current values as the dataset named after it
  subroutine op_fetch_data_hdf5_file(dat, fileName)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: fileName
    call op_fetch_data_hdf5_file_c(dat%dataCptr, op2_c_string(fileName))
  end subroutine op_fetch_data_hdf5_file

  ! ... as the dataset pathName ('/' separates groups)
  subroutine op_fetch_data_hdf5_file_path(dat, fileName, pathName)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: fileName
    character(len=*), intent(in) :: pathName
    call op_fetch_data_hdf5_file_path_c(dat%dataCptr, op2_c_string(fileName), op2_c_string(pathName))
  end subroutine op_fetch_data_hdf5_file_path

  ! ---------------------------------------------------------------------
  ! Constants: dim values of the array's own type ('int', 'long long',
  ! 'float' or 'double' for C); the type string is informational
  ! ---------------------------------------------------------------------

!GENERATED-BEGIN procedures
  subroutine op_get_const_hdf5_i4_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'integer(4)', int(1, 8), .true.)
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('int'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_i4_0

  subroutine op_get_const_hdf5_i4_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(:), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'integer(4)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('int'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_i4_1

  subroutine op_get_const_hdf5_i4_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(:, :), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'integer(4)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('int'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_i4_2

  subroutine op_get_const_hdf5_i8_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(8), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'integer(8)', int(1, 8), .true.)
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('long long'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_i8_0

  subroutine op_get_const_hdf5_i8_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(8), dimension(:), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'integer(8)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('long long'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_i8_1

  subroutine op_get_const_hdf5_i8_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(8), dimension(:, :), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'integer(8)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('long long'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_i8_2

  subroutine op_get_const_hdf5_r4_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'real(4)', int(1, 8), .true.)
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('float'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_r4_0

  subroutine op_get_const_hdf5_r4_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(:), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'real(4)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('float'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_r4_1

  subroutine op_get_const_hdf5_r4_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(:, :), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'real(4)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('float'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_r4_2

  subroutine op_get_const_hdf5_r8_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'real(8)', int(1, 8), .true.)
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('double'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_r8_0

  subroutine op_get_const_hdf5_r8_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(:), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'real(8)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('double'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_r8_1

  subroutine op_get_const_hdf5_r8_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(:, :), intent(inout), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_get_const_hdf5', name, dim, type, &
                              'real(8)', int(size(data), 8), is_contiguous(data))
    call op_get_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('double'), &
                             c_loc(data), op2_c_string(file))
  end subroutine op_get_const_hdf5_r8_2

  subroutine op_write_const_hdf5_i4_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'integer(4)', int(1, 8), .true.)
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('int'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_i4_0

  subroutine op_write_const_hdf5_i4_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'integer(4)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('int'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_i4_1

  subroutine op_write_const_hdf5_i4_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(4), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'integer(4)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('int'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_i4_2

  subroutine op_write_const_hdf5_i8_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(8), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'integer(8)', int(1, 8), .true.)
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('long long'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_i8_0

  subroutine op_write_const_hdf5_i8_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(8), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'integer(8)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('long long'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_i8_1

  subroutine op_write_const_hdf5_i8_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    integer(8), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'integer(8)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('long long'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_i8_2

  subroutine op_write_const_hdf5_r4_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'real(4)', int(1, 8), .true.)
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('float'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_r4_0

  subroutine op_write_const_hdf5_r4_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'real(4)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('float'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_r4_1

  subroutine op_write_const_hdf5_r4_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(4), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'real(4)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('float'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_r4_2

  subroutine op_write_const_hdf5_r8_0(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'real(8)', int(1, 8), .true.)
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('double'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_r8_0

  subroutine op_write_const_hdf5_r8_1(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'real(8)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('double'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_r8_1

  subroutine op_write_const_hdf5_r8_2(name, dim, type, data, file)
    character(len=*), intent(in) :: name
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    real(8), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_hdf5_check_const('op_write_const_hdf5', name, dim, type, &
                              'real(8)', int(size(data), 8), is_contiguous(data))
    call op_write_const_hdf5_c(op2_c_string(name), int(dim, c_int), op2_c_string('double'), &
                               c_loc(data), op2_c_string(file))
  end subroutine op_write_const_hdf5_r8_2

  ! op_fetch_data_hdf5_file2 / op_fetch_data_hdf5_file_ptr(array, file): the
  ! dat declared with op_decl_dat on `array` (the same array, not a copy)

  subroutine op_fetch_data_hdf5_file2_i4_1(data, file)
    integer(4), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_i4_1

  subroutine op_fetch_data_hdf5_file2_i4_2(data, file)
    integer(4), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_i4_2

  subroutine op_fetch_data_hdf5_file2_i4_3(data, file)
    integer(4), dimension(:, :, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_i4_3

  subroutine op_fetch_data_hdf5_file2_r4_1(data, file)
    real(4), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_r4_1

  subroutine op_fetch_data_hdf5_file2_r4_2(data, file)
    real(4), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_r4_2

  subroutine op_fetch_data_hdf5_file2_r4_3(data, file)
    real(4), dimension(:, :, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_r4_3

  subroutine op_fetch_data_hdf5_file2_r8_1(data, file)
    real(8), dimension(:), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_r8_1

  subroutine op_fetch_data_hdf5_file2_r8_2(data, file)
    real(8), dimension(:, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_r8_2

  subroutine op_fetch_data_hdf5_file2_r8_3(data, file)
    real(8), dimension(:, :, :), intent(in), target :: data
    character(len=*), intent(in) :: file
    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')
    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))
  end subroutine op_fetch_data_hdf5_file2_r8_3
!GENERATED-END procedures
end module OP2_Fortran_HDF5_Declarations
