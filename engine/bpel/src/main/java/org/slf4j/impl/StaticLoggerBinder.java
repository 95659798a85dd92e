package org.slf4j.impl;

import org.slf4j.ILoggerFactory;
import org.slf4j.spi.LoggerFactoryBinder;
import org.toscanini.bpel.OdeLog;

/**
 * SLF4J 1.7 binding (the API version ODE 1.3.x logs through): hands every logger to
 * {@link OdeLog}, which keeps ODE's warnings and errors for the report of the plan being compiled.
 * Some of ODE's compiler diagnostics are only logged, never reported as compilation messages.
 */
public final class StaticLoggerBinder implements LoggerFactoryBinder {
    private static final StaticLoggerBinder SINGLETON = new StaticLoggerBinder();

    /** Read by SLF4J to check that the binding fits the API. */
    public static String REQUESTED_API_VERSION = "1.6.99";

    private final ILoggerFactory factory = OdeLog::logger;

    private StaticLoggerBinder() {
    }

    public static StaticLoggerBinder getSingleton() {
        return SINGLETON;
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public String getLoggerFactoryClassStr() {
        return OdeLog.class.getName();
    }
}
