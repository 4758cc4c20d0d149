package cloudstacktest

// annotationEntityTypes is AnnotationService.EntityType. CloudStack looks the name up with
// Enum.valueOf, so it is case-sensitive.
var annotationEntityTypes = map[string]bool{
	"VM": true, "VOLUME": true, "SNAPSHOT": true, "VM_SNAPSHOT": true, "INSTANCE_GROUP": true,
	"SSH_KEYPAIR": true, "USER_DATA": true, "NETWORK": true, "VPC": true, "PUBLIC_IP_ADDRESS": true,
	"VPN_CUSTOMER_GATEWAY": true, "TEMPLATE": true, "ISO": true, "KUBERNETES_CLUSTER": true,
	"SERVICE_OFFERING": true, "DISK_OFFERING": true, "NETWORK_OFFERING": true, "ZONE": true,
	"POD": true, "CLUSTER": true, "HOST": true, "DOMAIN": true, "PRIMARY_STORAGE": true,
	"SECONDARY_STORAGE": true, "VR": true, "SYSTEM_VM": true, "AUTOSCALE_VM_GROUP": true,
	"MANAGEMENT_SERVER": true,
}

// legacyAnnotationEntityTypes is AnnotationService.EntityType at 4.14.0.0 and 4.15.0.0.
var legacyAnnotationEntityTypes = map[string]bool{"HOST": true, "DOMAIN": true, "VM": true}

type annotationJSON struct {
	ID         string `json:"id"`
	Annotation string `json:"annotation"`
	EntityID   string `json:"entityid,omitempty"`
	EntityType string `json:"entitytype,omitempty"`
	EntityName string `json:"entityname,omitempty"`
	AdminsOnly bool   `json:"adminsonly"`
	Created    string `json:"created,omitempty"`
	Removed    string `json:"removed,omitempty"`
	UserID     string `json:"userid"`
	Username   string `json:"username"`
}

// entityName resolves the entity an annotation is attached to. Only clusters and VMs are
// modelled: for them ok is false when the entity does not exist (or is expunged); other entity
// types are taken on trust, with no name.
func (w *World) entityName(entityType, id string) (name string, ok bool) {
	switch entityType {
	case "KUBERNETES_CLUSTER":
		for _, c := range w.Clusters {
			if c != nil && c.ID == id {
				return c.Name, true
			}
		}
		return "", false
	case "VM":
		if vm := w.vmByUUID(id); vm != nil && !vm.Removed {
			return vm.Name, true
		}
		return "", false
	default:
		return "", true
	}
}

func (w *World) newAnnotationJSON(a *Annotation) annotationJSON {
	name, _ := w.entityName(a.EntityType, a.EntityID)
	return annotationJSON{
		ID: a.ID, Annotation: a.Annotation, EntityID: a.EntityID, EntityType: a.EntityType,
		EntityName: name, AdminsOnly: a.AdminsOnly, Created: formatDate(a.Created),
		UserID: AdminUserID, Username: AdminAccount,
	}
}

// addAnnotation attaches a comment to an entity. The answer is wrapped in an "annotation" object,
// which cloudstack-go unwraps with a second getRawValue.
func (s *Server) addAnnotation(r *request) (any, *apiError) {
	p := r.params
	et, id := p.Get("entitytype"), p.Get("entityid")
	if !s.world.since(16) && !legacyAnnotationEntityTypes[et] {
		// AddAnnotationCmd.execute's Preconditions.checkState at 4.14.0.0 and 4.15.0.0 throws,
		// and ApiServer answers a root admin with the message as an internal error.
		return nil, &apiError{code: ErrInternalError, text: "'" + et + "' is ot a valid EntityType to put annotations on"}
	}
	switch {
	case p.Get("annotation") == "":
		return nil, paramError("Unable to execute API command addannotation due to missing parameter annotation")
	case !annotationEntityTypes[et]:
		return nil, paramError("'%s' is not a valid EntityType to put annotations on", et)
	case id == "":
		return nil, paramError("Unable to execute API command addannotation due to missing parameter entityid")
	}
	if _, ok := s.world.entityName(et, id); !ok {
		return nil, paramError("Unable to find entity of type %s with id %s", et, id)
	}
	a := &Annotation{
		ID: s.world.newUUID(), EntityType: et, EntityID: id, Annotation: p.Get("annotation"),
		AdminsOnly: boolParam(p, "adminsonly"), Created: r.now,
	}
	s.world.Annotations = append(s.world.Annotations, a)
	return map[string]any{"annotation": s.world.newAnnotationJSON(a)}, nil
}

// listAnnotations lists annotations that are not removed, in creation order. Filters: id,
// entitytype, entityid, keyword (substring of the text); annotationfilter may be all or self,
// which are the same for the fake's single admin user.
func (s *Server) listAnnotations(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	switch f := p.Get("annotationfilter"); f {
	case "", "all", "self":
	default:
		return nil, paramError("annotationfilter must be one of all, self; got %s", f)
	}
	if et := p.Get("entitytype"); et != "" && !s.world.since(16) && !legacyAnnotationEntityTypes[et] {
		return nil, &apiError{code: ErrInternalError, text: "No enum constant org.apache.cloudstack.annotation.AnnotationService.EntityType." + et}
	}
	var out []annotationJSON
	for _, a := range s.world.Annotations {
		switch {
		case a == nil || a.Removed:
		case p.Get("id") != "" && a.ID != p.Get("id"):
		case p.Get("entitytype") != "" && a.EntityType != p.Get("entitytype"):
		case p.Get("entityid") != "" && a.EntityID != p.Get("entityid"):
		case !containsFold(p.Get("keyword"), a.Annotation):
		default:
			out = append(out, s.world.newAnnotationJSON(a))
		}
	}
	return listAnswer(r, win, "annotation", out), nil
}

// removeAnnotation marks an annotation removed and answers it with its removal date.
func (s *Server) removeAnnotation(r *request) (any, *apiError) {
	id := r.params.Get("id")
	if id == "" {
		return nil, paramError("Unable to execute API command removeannotation due to missing parameter id")
	}
	for _, a := range s.world.Annotations {
		if a != nil && !a.Removed && a.ID == id {
			a.Removed = true
			j := s.world.newAnnotationJSON(a)
			j.Removed = formatDate(r.now)
			return map[string]any{"annotation": j}, nil
		}
	}
	return nil, paramError("Unable to execute API command removeannotation due to invalid value. Invalid parameter id value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", id)
}
