//! Reading input files.
