package org.toscanini.bpel;

/** One error or warning found in a plan package, located in one of its files. */
public record Problem(String file, int line, String message) {
    @Override
    public String toString() {
        String where = file == null || file.isEmpty() ? "" : (line > 0 ? file + ":" + line + ": " : file + ": ");
        return where + message.replaceAll("\\s*\\R\\s*", " ").strip();
    }
}
