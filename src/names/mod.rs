//! Names and text every stage writes: XML NCNames and unique identifiers,
//! XML escaping, the plan languages' URIs. They sit below every stage (they
//! use nothing of toscanini), so that a stage never reaches into a later one
//! for a helper.

pub mod escape;
pub mod languages;
mod ncname;

pub use escape::xml_escape;
pub use ncname::{Unique, ncname};
