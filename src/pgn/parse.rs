//! Reading one game's bytes into a [`super::Game`].
