//! Stage 6: rendering concrete plans into plan languages.
