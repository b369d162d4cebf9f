/**
 * The workspace lock domain: leases, fencing tokens and the FIFO wait queue, as decide/apply over
 * {@link dev.stagecraft.lock.lease.LockEvent}s. Plain Java only — an architecture test keeps it so.
 */
package dev.stagecraft.lock.lease;
