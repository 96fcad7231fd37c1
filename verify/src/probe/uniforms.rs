//! Named fragment-program uniforms read from draws' inline constants.
