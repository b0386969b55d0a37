//! The families of the IR's [`Filter`](super::Filter): one file, and one enum, per family
//! of filters, following the sections of docs/. The interpreter has one evaluator per family
//! (src/eval/engine/, the file of the same name).

mod game_tree;
mod geometry;
mod header;
mod keywords62;
mod logic;
mod numbers;
mod output;
mod position_state;
mod sets;
mod variables;

pub use game_tree::GameTreeFilter;
pub use geometry::{GeometryFilter, PinPart};
pub use header::{HeaderFilter, HhdbAwardKind};
pub use keywords62::Keyword62Filter;
pub use logic::LogicFilter;
pub use numbers::NumberFilter;
pub use output::OutputFilter;
pub use position_state::PositionStateFilter;
pub use sets::SetFilter;
pub use variables::VariableFilter;
