package cloudstacktest

import "strings"

// builtinAlertTypes are CloudStack's default alert types, from AlertService.AlertType in
// api/src/main/java/org/apache/cloudstack/alert/AlertService.java (apache/cloudstack main) and
// the capacity types in com/cloud/capacity/Capacity.java. generateAlert refuses one of these
// types under another name.
//
// Types 10 and 32 carry several default names. CloudStack keeps the defaults in a HashSet and
// compares the name with whichever one it finds first, so which names pass is decided per JVM
// run; the fake accepts any of the default names for such a type, the most lenient reading.
// Every other type (negative, or 33 and above) is custom.
var builtinAlertTypes = map[int][]string{
	0:  {"ALERT.MEMORY"},
	1:  {"ALERT.CPU"},
	2:  {"ALERT.STORAGE"},
	3:  {"ALERT.STORAGE.ALLOCATED"},
	4:  {"ALERT.NETWORK.PUBLICIP"},
	5:  {"ALERT.NETWORK.PRIVATEIP"},
	6:  {"ALERT.STORAGE.SECONDARY"},
	7:  {"ALERT.COMPUTE.HOST"},
	8:  {"ALERT.USERVM"},
	9:  {"ALERT.SERVICE.DOMAINROUTER"},
	10: {"ALERT.SERVICE.CONSOLEPROXY", "ALERT.NETWORK.IPV6SUBNET"},
	11: {"ALERT.NETWORK.ROUTING"},
	12: {"ALERT.STORAGE.MISC"},
	13: {"ALERT.USAGE"},
	14: {"ALERT.MANAGEMENT"},
	15: {"ALERT.NETWORK.DOMAINROUTERMIGRATE"},
	16: {"ALERT.SERVICE.CONSOLEPROXYMIGRATE"},
	17: {"ALERT.USERVM.MIGRATE"},
	18: {"ALERT.NETWORK.VLAN"},
	19: {"ALERT.SERVICE.SSVM"},
	20: {"ALERT.USAGE.RESULT"},
	21: {"ALERT.STORAGE.DELETE"},
	22: {"ALERT.RESOURCE.COUNT"},
	23: {"ALERT.USAGE.SANITY"},
	24: {"ALERT.NETWORK.DIRECTPUBLICIP"},
	25: {"ALERT.STORAGE.LOCAL"},
	26: {"ALERT.RESOURCE.EXCEED"},
	27: {"ALERT.TYPE.SYNC"},
	28: {"ALERT.UPLOAD.FAILED"},
	29: {"ALERT.OOBM.AUTHERROR"},
	30: {"ALERT.HA.ACTION"},
	31: {"ALERT.CA.CERT"},
	32: {"ALERT.VM.SNAPSHOT", "ALERT.VM.START", "ALERT.VM.STOP", "ALERT.VM.REBOOT",
		"ALERT.VM.FORCESTOP", "ALERT.VR.PUBLIC.IFACE.MTU", "ALERT.VR.PRIVATE.IFACE.MTU"},
}

// IsBuiltinAlertType reports whether CloudStack reserves alert type t for its own alerts, so a
// client can pick a custom type that generateAlert will accept under any name.
func IsBuiltinAlertType(t int) bool {
	_, ok := builtinAlertTypes[t]
	return ok
}

// checkAlertType mirrors AlertType.generateAlert: a built-in type is only accepted under its own
// name (compared without case).
func checkAlertType(t int, name string) *apiError {
	names, ok := builtinAlertTypes[t]
	if !ok {
		return nil
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return nil
		}
	}
	return paramError("There is a default alert having type %d and name %s", t, names[0])
}
