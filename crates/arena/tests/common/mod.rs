//! Helpers shared by the binary's integration tests.
#![allow(dead_code)]

pub mod cpu_group;
pub mod schemas;
