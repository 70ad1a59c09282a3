//! Integration tests of `mahjong-deal`: one binary, one module per area.

#![allow(clippy::unwrap_used)]

mod argument;
mod attacks;
mod carried;
mod common;
mod derive;
mod fuzz;
mod honest;
mod linear;
mod review;
mod set_aside;
mod statistics;
