package dev.graphrt.driver;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which peers one device reaches directly, each asked once: the part of peer access both driver backends share. A
 * backend names its two calls ({@code cuDeviceCanAccessPeer}/{@code cuCtxEnablePeerAccess},
 * {@code hipDeviceCanAccessPeer}/{@code hipDeviceEnablePeerAccess}) and passes, per peer, the raw calls themselves.
 *
 * <p>A peer on the same device is reached. One the devices cannot reach, or whose enable is refused (too many peers,
 * unsupported), is answered false and logged: copies to it still work, staged by the driver through host memory.
 * "Already enabled" (704 in both APIs: another runtime of this device enabled it) is success. Entries go with their
 * peer (weak keys), so a long-lived runtime does not keep closed ones.
 */
public final class PeerAccess {
    private static final Logger LOG = LoggerFactory.getLogger(PeerAccess.class);
    /** {@code CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED}, {@code hipErrorPeerAccessAlreadyEnabled}. */
    public static final int ALREADY_ENABLED = 704;

    private final DriverContext device;
    private final DriverCalls calls;
    private final String canAccessCall;
    private final String enableCall;
    private final Map<StreamDriver, Boolean> peers = Collections.synchronizedMap(new WeakHashMap<>());

    /** The peers {@code device} reaches, asked with the calls named {@code canAccessCall} and {@code enableCall}. */
    public PeerAccess(DriverContext device, DriverCalls calls, String canAccessCall, String enableCall) {
        this.device = device;
        this.calls = calls;
        this.canAccessCall = canAccessCall;
        this.enableCall = enableCall;
    }

    /**
     * Whether this device reaches {@code peer} directly, enabling it the first time it is asked: {@code canAccess}
     * writes the query's answer (non-zero: yes), {@code enable} enables access from this device's context, made
     * current first; it leaves that context current.
     */
    public boolean reaches(
            StreamDriver peer, boolean sameDevice, DriverCalls.OutCall canAccess, DriverCalls.Call enable) {
        return peers.computeIfAbsent(peer, p -> sameDevice || ask(peer, canAccess, enable));
    }

    private boolean ask(StreamDriver peer, DriverCalls.OutCall canAccess, DriverCalls.Call enable) {
        device.makeCurrent();
        if (calls.intOut(canAccessCall, canAccess) == 0) {
            return false;
        }
        int rc;
        try {
            rc = enable.invoke();
        } catch (Throwable t) {
            throw DriverCalls.unexpected(enableCall, t);
        }
        if (rc == HardwareGraphErrors.SUCCESS || rc == ALREADY_ENABLED) {
            return true;
        }
        LOG.warn(
                "{}: {} to {} returned {} {}; copies between them go through host memory",
                device.names().backend(),
                enableCall,
                peer,
                rc,
                calls.errors().name(rc));
        return false;
    }
}
