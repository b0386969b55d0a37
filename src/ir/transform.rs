//! Compile-time expansion of CQL transforms (`flip`, `shift`, `rotate90`, …).
