package org.toscanini.bpel;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.ode.utils.HierarchicalProperties;
import org.apache.ode.utils.Properties;

/**
 * A call between two processes of the package (a plan's call of its call process) waits for its
 * answer no longer than {@code p2p.mex.timeout}, which ODE reads from the package's
 * {@code *.endpoint} files for the called service, and which is 2 minutes without one
 * ({@code Properties.DEFAULT_MEX_TIMEOUT}). A plan's call waits for a management-bus operation,
 * which takes longer: each call must have it set to an hour or more, read as ODE reads it
 * ({@code HierarchicalProperties}, then the key {@code BpelProcess.getTimeout} asks for). No run
 * here can show it: ODE schedules the check of a call's answer only for persistent processes
 * ({@code BpelRuntimeContextImpl.scheduleInvokeCheck}), and the harness's are in memory.
 */
final class P2pTimeoutCheck {
    /** The least a call may wait: an hour. */
    static final long AT_LEAST = 60L * 60 * 1000;

    private P2pTimeoutCheck() {
    }

    /** `calls`: the package's calls between its processes ({@link DeployCheck#calls}). */
    static void run(Path pkg, List<DeployCheck.Call> calls, List<Problem> errors) {
        if (calls.isEmpty()) {
            return;
        }
        File[] files = pkg.toFile().listFiles((d, n) -> n.endsWith(".endpoint"));
        HierarchicalProperties props;
        try {
            props = new HierarchicalProperties(files == null ? new File[0] : files);
        } catch (IOException e) {
            errors.add(new Problem("*.endpoint", 0, "ODE cannot read the endpoint properties: " + e.getMessage()));
            return;
        }
        for (DeployCheck.Call c : calls) {
            Map<?, ?> p = props.getProperties(c.service(), c.port());
            Object v = p == null ? null : p.get(Properties.PROP_P2P_MEX_TIMEOUT);
            long ms = -1;
            try {
                ms = v == null ? -1 : Long.parseLong(v.toString().strip());
            } catch (NumberFormatException e) {
                // reported below
            }
            if (ms < AT_LEAST) {
                errors.add(new Problem(DeployCheck.NAME, 0, "process " + c.caller() + " calls " + c.callee()
                        + " (service " + c.service() + ") in the server, and "
                        + (v == null ? "no *.endpoint file of the package sets " + Properties.PROP_P2P_MEX_TIMEOUT
                                + " for it, so ODE gives up on the call after 2 minutes"
                                : Properties.PROP_P2P_MEX_TIMEOUT + " is " + v + " ms")
                        + ": a management-bus operation may take longer (an hour at least)"));
            }
        }
    }
}
