! Kernels of tests/fortran/data_helpers.F90.

module data_helpers_kernels

  implicit none

contains

  subroutine double_it(x)
    real(8), dimension(2), intent(inout) :: x
    x = 2.0_8 * x
  end subroutine double_it

end module data_helpers_kernels
