//! The CPU backend's bundle path: the build in the compiler sandbox ([`build`]), the
//! screen of the built shared object ([`artifact`]) and the loaded kernels ([`kernel`]).

pub mod artifact;
pub mod build;
pub mod kernel;
