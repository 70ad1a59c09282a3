//! A cap on the inbound connections from one IP address, pending and established together.
//!
//! libp2p's own caps count per peer id, and a peer id costs nothing: a stranger makes a
//! thousand in a second. An IP address costs something, so this is the cap that stops one
//! stranger from taking every reservation and circuit of the relay (each reservation and
//! each circuit's source needs its own connection, see the crate's limits).

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::IpAddr;
use std::task::{Context, Poll};

use libp2p::core::Endpoint;
use libp2p::core::multiaddr::Protocol;
use libp2p::core::transport::PortUse;
use libp2p::swarm::{
    ConnectionClosed, ConnectionDenied, ConnectionId, FromSwarm, ListenFailure, NetworkBehaviour,
    THandler, THandlerInEvent, THandlerOutEvent, ToSwarm, dummy,
};
use libp2p::{Multiaddr, PeerId};

/// Refuses an inbound connection when its IP address already has `max` inbound connections
/// (pending or established). Connections whose address has no IP (none today) are not capped.
#[derive(Debug)]
pub struct PerIpLimit {
    max: usize,
    /// Every inbound connection let through and not yet closed or failed, by id.
    inbound: HashMap<ConnectionId, IpAddr>,
    /// The count of `inbound` per address.
    per_ip: HashMap<IpAddr, usize>,
}

/// The error a refused connection carries (in the relay's logs).
#[derive(Debug, thiserror::Error)]
#[error("{ip} already has {max} connections to this relay")]
pub struct TooManyFromIp {
    /// The address refused.
    pub ip: IpAddr,
    /// The cap.
    pub max: usize,
}

impl PerIpLimit {
    /// A cap of `max` inbound connections per IP address.
    pub fn new(max: usize) -> PerIpLimit {
        PerIpLimit {
            max,
            inbound: HashMap::new(),
            per_ip: HashMap::new(),
        }
    }

    /// The inbound connections from `ip` now counted.
    pub fn count(&self, ip: IpAddr) -> usize {
        self.per_ip.get(&ip).copied().unwrap_or(0)
    }

    fn release(&mut self, id: ConnectionId) {
        if let Some(ip) = self.inbound.remove(&id)
            && let Some(n) = self.per_ip.get_mut(&ip)
        {
            *n -= 1;
            if *n == 0 {
                self.per_ip.remove(&ip);
            }
        }
    }
}

/// The IP address of a multiaddr, if it has one.
pub fn ip_of(addr: &Multiaddr) -> Option<IpAddr> {
    addr.iter().find_map(|p| match p {
        Protocol::Ip4(a) => Some(IpAddr::V4(a)),
        Protocol::Ip6(a) => Some(IpAddr::V6(a)),
        _ => None,
    })
}

impl NetworkBehaviour for PerIpLimit {
    type ConnectionHandler = dummy::ConnectionHandler;
    type ToSwarm = Infallible;

    fn handle_pending_inbound_connection(
        &mut self,
        connection_id: ConnectionId,
        _local_addr: &Multiaddr,
        remote_addr: &Multiaddr,
    ) -> Result<(), ConnectionDenied> {
        let Some(ip) = ip_of(remote_addr) else {
            return Ok(());
        };
        let n = self.per_ip.entry(ip).or_insert(0);
        if *n >= self.max {
            return Err(ConnectionDenied::new(TooManyFromIp { ip, max: self.max }));
        }
        *n += 1;
        self.inbound.insert(connection_id, ip);
        Ok(())
    }

    fn handle_established_inbound_connection(
        &mut self,
        _: ConnectionId,
        _: PeerId,
        _: &Multiaddr,
        _: &Multiaddr,
    ) -> Result<THandler<Self>, ConnectionDenied> {
        Ok(dummy::ConnectionHandler)
    }

    fn handle_established_outbound_connection(
        &mut self,
        _: ConnectionId,
        _: PeerId,
        _: &Multiaddr,
        _: Endpoint,
        _: PortUse,
    ) -> Result<THandler<Self>, ConnectionDenied> {
        Ok(dummy::ConnectionHandler)
    }

    fn on_swarm_event(&mut self, event: FromSwarm) {
        match event {
            FromSwarm::ConnectionClosed(ConnectionClosed { connection_id, .. })
            | FromSwarm::ListenFailure(ListenFailure { connection_id, .. }) => {
                self.release(connection_id)
            }
            _ => {}
        }
    }

    fn on_connection_handler_event(
        &mut self,
        _: PeerId,
        _: ConnectionId,
        event: THandlerOutEvent<Self>,
    ) {
        match event {}
    }

    fn poll(&mut self, _: &mut Context<'_>) -> Poll<ToSwarm<Self::ToSwarm, THandlerInEvent<Self>>> {
        Poll::Pending
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_counts_per_address_and_frees_on_failure() {
        let mut limit = PerIpLimit::new(2);
        let local: Multiaddr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let a: Multiaddr = "/ip4/10.0.0.1/tcp/5000".parse().unwrap();
        let b: Multiaddr = "/ip4/10.0.0.2/tcp/5000".parse().unwrap();
        let ids: Vec<ConnectionId> = (1..=4).map(ConnectionId::new_unchecked).collect();
        assert!(
            limit
                .handle_pending_inbound_connection(ids[0], &local, &a)
                .is_ok()
        );
        assert!(
            limit
                .handle_pending_inbound_connection(ids[1], &local, &a)
                .is_ok()
        );
        assert!(
            limit
                .handle_pending_inbound_connection(ids[2], &local, &a)
                .is_err()
        );
        assert!(
            limit
                .handle_pending_inbound_connection(ids[3], &local, &b)
                .is_ok()
        );
        assert_eq!(limit.count(ip_of(&a).unwrap()), 2);
        limit.release(ids[0]);
        limit.release(ids[0]);
        assert_eq!(limit.count(ip_of(&a).unwrap()), 1);
        assert!(
            limit
                .handle_pending_inbound_connection(ids[2], &local, &a)
                .is_ok()
        );
    }
}
