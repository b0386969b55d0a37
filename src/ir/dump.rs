//! `--dump-ir`: a readable, deterministic listing of an [`Ir`](super::Ir).
