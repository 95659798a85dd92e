package org.toscanini.bpel;

import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MarkerIgnoringBase;
import org.slf4j.helpers.MessageFormatter;

/**
 * Collects what ODE logs at WARN and ERROR level while the current thread compiles a plan;
 * everything below WARN is dropped.
 */
public final class OdeLog {
    /** One logged message. */
    public record Entry(boolean error, String logger, String message, Throwable thrown) {
    }

    private static final ThreadLocal<List<Entry>> SINK = new ThreadLocal<>();
    /** What ODE logged at ERROR level outside a compilation, on any thread (its engine's). */
    private static final List<Entry> RUN = new ArrayList<>();
    /** TOSCANINI_ODE_DEBUG set: the harness prints what ODE logs, its jobs and bus callbacks. */
    public static final boolean DEBUG = System.getenv("TOSCANINI_ODE_DEBUG") != null;

    private OdeLog() {
    }

    /** Starts collecting on this thread. */
    static void start() {
        SINK.set(new ArrayList<>());
    }

    /** Stops collecting on this thread and returns what was logged since {@link #start}. */
    static List<Entry> stop() {
        List<Entry> l = SINK.get();
        SINK.remove();
        return l == null ? List.of() : l;
    }

    /**
     * The errors ODE's engine logged since the last call, and forgets them: ODE logs some
     * failures (a scheduled job that threw, a join condition it could not evaluate) and goes on
     * as if nothing happened, so a run must look here.
     */
    public static List<Entry> takeRunErrors() {
        synchronized (RUN) {
            List<Entry> l = List.copyOf(RUN);
            RUN.clear();
            return l;
        }
    }

    public static Logger logger(String name) {
        return new Sink(name);
    }

    private static final class Sink extends MarkerIgnoringBase {
        private static final long serialVersionUID = 1L;

        Sink(String name) {
            this.name = name;
        }

        private void add(boolean error, FormattingTuple t) {
            add(error, t.getMessage(), t.getThrowable());
        }

        private void add(boolean error, String msg, Throwable t) {
            Entry e = new Entry(error, name, msg, t);
            List<Entry> l = SINK.get();
            if (l != null) {
                l.add(e);
                return;
            }
            if (DEBUG) {
                System.err.println("ODE " + (error ? "error" : "warning") + " (" + name + "): " + msg);
                if (t != null) {
                    t.printStackTrace();
                }
            }
            if (error) {
                synchronized (RUN) {
                    RUN.add(e);
                }
            }
        }

        @Override public boolean isTraceEnabled() { return false; }
        @Override public void trace(String msg) { }
        @Override public void trace(String format, Object arg) { }
        @Override public void trace(String format, Object arg1, Object arg2) { }
        @Override public void trace(String format, Object... arguments) { }
        @Override public void trace(String msg, Throwable t) { }

        @Override public boolean isDebugEnabled() { return false; }
        @Override public void debug(String msg) { }
        @Override public void debug(String format, Object arg) { }
        @Override public void debug(String format, Object arg1, Object arg2) { }
        @Override public void debug(String format, Object... arguments) { }
        @Override public void debug(String msg, Throwable t) { }

        @Override public boolean isInfoEnabled() { return false; }
        @Override public void info(String msg) { }
        @Override public void info(String format, Object arg) { }
        @Override public void info(String format, Object arg1, Object arg2) { }
        @Override public void info(String format, Object... arguments) { }
        @Override public void info(String msg, Throwable t) { }

        @Override public boolean isWarnEnabled() { return true; }
        @Override public void warn(String msg) { add(false, msg, null); }
        @Override public void warn(String format, Object arg) { add(false, MessageFormatter.format(format, arg)); }
        @Override public void warn(String format, Object a1, Object a2) { add(false, MessageFormatter.format(format, a1, a2)); }
        @Override public void warn(String format, Object... args) { add(false, MessageFormatter.arrayFormat(format, args)); }
        @Override public void warn(String msg, Throwable t) { add(false, msg, t); }

        @Override public boolean isErrorEnabled() { return true; }
        @Override public void error(String msg) { add(true, msg, null); }
        @Override public void error(String format, Object arg) { add(true, MessageFormatter.format(format, arg)); }
        @Override public void error(String format, Object a1, Object a2) { add(true, MessageFormatter.format(format, a1, a2)); }
        @Override public void error(String format, Object... args) { add(true, MessageFormatter.arrayFormat(format, args)); }
        @Override public void error(String msg, Throwable t) { add(true, msg, t); }
    }
}
