//! The CPU backend: a bundle's build in the compiler sandbox ([`build`]), the screen of
//! the built shared object ([`artifact`]), the loaded kernels ([`kernel`]), whose
//! library's static storage is written back before every call ([`static_image`]), and the engine
//! they plug into ([`engine`]: the f32 forward pass, its matmuls and its slot table).

pub mod artifact;
pub mod build;
pub mod engine;
pub mod kernel;
pub mod static_image;
