//! Names and text every stage writes: XML NCNames and unique identifiers,
//! XML escaping, the plan languages' URIs. They sit below every stage (they
//! use nothing of toscanini), so that a stage never reaches into a later one
//! for a helper.

pub(crate) mod escape;
pub(crate) mod languages;
mod ncname;

pub(crate) use escape::xml_escape;
pub(crate) use ncname::{Distinct, Unique, ncname};
