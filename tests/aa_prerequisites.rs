//! The tools the end-to-end tests need, checked before any of them runs.
//! cargo runs the library's unit tests first and then the test binaries in
//! name order, and stops at the first that fails: named to sort first, this
//! one failure says everything that is missing, instead of every
//! end-to-end test failing on its own. The pure tests (`cargo test-pure`,
//! an alias in `.cargo/config.toml`) need none of these.

mod common;
mod support;

#[test]
fn the_end_to_end_tests_have_their_tools() {
    let missing = support::missing_tools();
    assert!(
        missing.is_empty(),
        "\n\nThe end-to-end tests run a real control plane and need tools this machine lacks:\n  - {}\n\
         Install them and run `cargo test` again. The first run builds the control plane from source:\n\
         about 8 GB of Go caches and 15-20 minutes on 2 cores. Without them, the pure tests run with\n  \
         cargo test-pure   (the alias in .cargo/config.toml)\n",
        missing.join("\n  - ")
    );
}
