//! Progress output while a run goes on (stderr). (Placeholder: being built.)
