//! What confines untrusted work: [`landlock`] (the file system a process may touch) and the
//! sandboxed compiler process ([`compiler`]) every C and CUDA build runs in.

pub mod compiler;
pub mod landlock;
