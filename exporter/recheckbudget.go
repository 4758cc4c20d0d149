package exporter

import "time"

// recheckBudget bounds the re-checks events start: at most perMinute in any minute across the
// cloud, and no tenant more than an equal share of them with one share kept free for a tenant
// that has not asked yet: perMinute / (the tenants that asked in the last minute + 1), at least
// one. A tenant alone gets half; when another one asks, the newcomer is granted at once from the
// share kept free, and the first gets no more until it is back under the smaller share. So a
// tenant that floods events (creating and destroying VMs in a loop) never takes the re-checks of
// a tenant that asks after it.
type recheckBudget struct {
	perMinute int
	granted   map[string][]time.Time // by tenant, oldest first; at most perMinute in all
	asked     map[string]time.Time   // by tenant, the last time it asked; pruned with granted
	total     int
}

func newRecheckBudget(perMinute int) *recheckBudget {
	return &recheckBudget{perMinute: perMinute, granted: make(map[string][]time.Time), asked: make(map[string]time.Time)}
}

// take grants tenant one re-check at now, or says that it is over budget.
func (b *recheckBudget) take(tenant string, now time.Time) bool {
	b.prune(now)
	if len(b.asked) < b.perMinute || b.asked[tenant] != (time.Time{}) {
		b.asked[tenant] = now // bounded: a tenant beyond perMinute cannot be granted anything anyway
	}
	if b.total >= b.perMinute {
		return false
	}
	share := max(1, b.perMinute/(len(b.asked)+1))
	if len(b.granted[tenant]) >= share {
		return false
	}
	b.granted[tenant] = append(b.granted[tenant], now)
	b.total++
	return true
}

// prune forgets what is a minute old.
func (b *recheckBudget) prune(now time.Time) {
	cutoff := now.Add(-time.Minute)
	for t, times := range b.granted {
		i := 0
		for i < len(times) && !times[i].After(cutoff) {
			i++
		}
		b.total -= i
		if i == len(times) {
			delete(b.granted, t)
		} else {
			b.granted[t] = times[i:]
		}
	}
	for t, at := range b.asked {
		if !at.After(cutoff) {
			delete(b.asked, t)
		}
	}
}
