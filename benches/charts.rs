//! Benchmarks (being built).
fn main() {
    divan::main();
}
