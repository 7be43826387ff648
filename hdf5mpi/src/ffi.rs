//! OP2's C structs and C API as the HDF5 libraries see them: hdf5io's op2_c.

pub use op2_hdf5_io::op2_c::*;
