//! End-to-end tests for droidscore live in `tests/`; this library is empty on purpose.
