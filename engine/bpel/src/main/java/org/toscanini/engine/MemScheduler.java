package org.toscanini.engine;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ode.bpel.iapi.ContextException;
import org.apache.ode.bpel.iapi.Scheduler;
import org.toscanini.bpel.OdeLog;

/**
 * ODE's scheduler, in memory and on one worker thread: what ODE schedules (a message to match, a
 * partner's reply, a resumed instance) runs in order of its due time, one job at a time, each in a
 * transaction of its own. A transaction here is a unit of work whose scheduled jobs become due only
 * when it commits and whose synchronizers are told how it ended; there is nothing to roll back (the
 * instance state lives in ODE's in-memory DAO), so a job that fails ends the run instead
 * ({@link #failure()}), as a job the harness does not retry.
 */
final class MemScheduler implements Scheduler {
    private record Job(long seq, long due, JobInfo info, Runnable runnable) {
    }

    private static final class Tx {
        final List<Job> jobs = new ArrayList<>();
        final List<Synchronizer> synchronizers = new ArrayList<>();
        boolean rollbackOnly;
    }

    private final PriorityQueue<Job> queue = new PriorityQueue<>((a, b) -> a.due != b.due
            ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private final ThreadLocal<Tx> current = new ThreadLocal<>();
    private JobProcessor processor;
    private long seq;
    private Thread worker;
    private volatile boolean stopped;
    private volatile Throwable failure;

    @Override
    public void setJobProcessor(JobProcessor processor) {
        this.processor = processor;
    }

    @Override
    public void setPolledRunnableProcesser(JobProcessor processor) {
        // Polled runnables are run directly (scheduleMapSerializableRunnable).
    }

    @Override
    public String schedulePersistedJob(JobDetails details, Date when) {
        return schedule(details, when, null);
    }

    @Override
    public String scheduleVolatileJob(boolean transacted, JobDetails details, Date when) {
        return schedule(details, when, null);
    }

    @Override
    public String scheduleVolatileJob(boolean transacted, JobDetails details) {
        return schedule(details, null, null);
    }

    @Override
    public String scheduleMapSerializableRunnable(MapSerializableRunnable runnable, Date when) {
        return schedule(new JobDetails(), when, runnable);
    }

    private synchronized String schedule(JobDetails details, Date when, Runnable runnable) {
        long id = ++seq;
        String name = "job-" + id;
        Job job = new Job(id, when == null ? System.currentTimeMillis() : when.getTime(),
                new JobInfo(name, details, 0), runnable);
        Tx tx = current.get();
        if (tx != null) {
            tx.jobs.add(job);
        } else {
            queue.add(job);
            notifyAll();
        }
        return name;
    }

    /**
     * Runs `work` on the worker, in a transaction of its own, once nothing ODE scheduled is due: a
     * partner's message then meets the instance waiting for it, as a remote partner's would.
     */
    synchronized void later(Runnable work) {
        deferred.add(new Job(++seq, 0, new JobInfo("later-" + seq, new JobDetails(), 0), work));
        notifyAll();
    }

    private final java.util.ArrayDeque<Job> deferred = new java.util.ArrayDeque<>();

    @Override
    public synchronized void cancelJob(String name) {
        queue.removeIf(j -> j.info.jobName.equals(name));
    }

    @Override
    public <T> T execTransaction(Callable<T> work) throws Exception {
        if (current.get() != null) {
            return work.call();
        }
        Tx tx = new Tx();
        current.set(tx);
        boolean ok = false;
        try {
            T result = work.call();
            ok = !tx.rollbackOnly;
            if (ok) {
                for (Synchronizer s : List.copyOf(tx.synchronizers)) {
                    s.beforeCompletion();
                }
            }
            return result;
        } finally {
            current.remove();
            for (Synchronizer s : tx.synchronizers) {
                s.afterCompletion(ok);
            }
            if (ok) {
                synchronized (this) {
                    queue.addAll(tx.jobs);
                    notifyAll();
                }
            }
        }
    }

    @Override
    public <T> T execTransaction(Callable<T> work, int timeout) throws Exception {
        return execTransaction(work);
    }

    @Override
    public void setRollbackOnly() {
        Tx tx = current.get();
        if (tx != null) {
            tx.rollbackOnly = true;
        }
    }

    @Override
    public <T> Future<T> execIsolatedTransaction(Callable<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(execTransaction(work));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "ode-isolated");
        t.setDaemon(true);
        t.start();
        return f;
    }

    @Override
    public boolean isTransacted() {
        return current.get() != null;
    }

    @Override
    public void registerSynchronizer(Synchronizer synchronizer) {
        Tx tx = current.get();
        if (tx == null) {
            throw new ContextException("no transaction to register a synchronizer with");
        }
        tx.synchronizers.add(synchronizer);
    }

    @Override
    public synchronized void start() {
        if (worker != null) {
            return;
        }
        worker = new Thread(this::work, "ode-scheduler");
        worker.setDaemon(true);
        worker.start();
    }

    @Override
    public void stop() {
        stopped = true;
        synchronized (this) {
            notifyAll();
        }
    }

    @Override
    public void shutdown() {
        stop();
    }

    @Override
    public void acquireTransactionLocks() {
    }

    /** Forgets the failure and the dropped messages of an earlier run. */
    void clearFailure() {
        failure = null;
        dropped.set(0);
    }

    // Counted on the worker (work()) and on the thread awaiting a run (OdeServer.takeOdeErrors).
    private final AtomicInteger dropped = new AtomicInteger();

    /** Counts a message ODE found no receive for and only logged (OdeServer.takeOdeErrors). */
    void countDropped() {
        dropped.incrementAndGet();
    }

    /** Messages for which the process had no receive waiting (dropped, see work()). */
    int dropped() {
        return dropped.get();
    }

    /** Whether `e` is ODE's failure to route a message (see work()). */
    static boolean unrouted(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            for (StackTraceElement s : c.getStackTrace()) {
                if (s.getMethodName().equals("noRoutingMatch")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The first job that failed (ODE's exception), or null. */
    Throwable failure() {
        return failure;
    }

    private boolean busy;

    private void work() {
        while (!stopped) {
            Job job;
            synchronized (this) {
                busy = false;
                notifyAll();
                while (!stopped && (queue.isEmpty() || queue.peek().due > System.currentTimeMillis())) {
                    if (!deferred.isEmpty()) {
                        queue.add(deferred.poll());
                        continue;
                    }
                    long wait = queue.isEmpty() ? 0 : Math.max(1, queue.peek().due - System.currentTimeMillis());
                    try {
                        wait(wait);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (stopped) {
                    return;
                }
                job = queue.poll();
                busy = true;
                if (OdeLog.DEBUG) {
                    System.err.println("job " + job.info.jobName + " " + job.info.jobDetail);
                }
            }
            try {
                execTransaction(() -> {
                    if (job.runnable != null) {
                        job.runnable.run();
                    } else {
                        processor.onScheduledJob(job.info);
                    }
                    return null;
                });
            } catch (Throwable e) {
                if (unrouted(e)) {
                    // A bus callback no receive waits for any more (its scope faulted or was
                    // terminated while the call ran): the in-memory DAO fails on it where a
                    // persistent one queues it for good. Dropped, and counted.
                    dropped.incrementAndGet();
                    continue;
                }
                if (failure == null) {
                    failure = e;
                    if (OdeLog.DEBUG) {
                        e.printStackTrace();
                    }
                }
            }
        }
    }

    /** Jobs scheduled and not run yet, due or not (ODE's timers included). */
    synchronized int pending() {
        return queue.size() + deferred.size();
    }

    /** Waits until nothing is due or waiting, at most until `deadline` (ms since the epoch). */
    synchronized boolean awaitIdle(long deadline) throws InterruptedException {
        while (!(queue.isEmpty() && deferred.isEmpty() && !busy)) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(Math.min(left, 50));
        }
        return true;
    }
}
