package cloudstacktest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAnnotations(t *testing.T) {
	s, cs := newTestServer(t)
	var clusterID, vmID string
	s.Update(func(w *World) {
		clusterID = w.AddCluster(Cluster{Name: "c1", Account: AdminAccount}).ID
		vmID = w.AddVM(VM{Name: "c1-node-1", Account: AdminAccount}).ID
	})

	add := func(entityType, id, text string) (string, error) {
		p := cs.Annotation.NewAddAnnotationParams()
		p.SetEntitytype(entityType)
		p.SetEntityid(id)
		p.SetAnnotation(text)
		p.SetAdminsonly(true)
		r, err := cs.Annotation.AddAnnotation(p)
		if err != nil {
			return "", err
		}
		if r.Entityid != id || r.Annotation != text || !r.Adminsonly || r.Created == "" {
			t.Errorf("AddAnnotation answer: %+v", r)
		}
		return r.Id, nil
	}
	first, err := add("KUBERNETES_CLUSTER", clusterID, "drift: 1 VM missing")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := add("VM", vmID, "stray"); err != nil {
		t.Fatal(err)
	}
	_, err = add("KUBERNETES_CLUSTER", "cafe9999-0000-4000-8000-000000000000", "x")
	wantAPIError(t, err, "431") // no such cluster
	_, err = add("kubernetes_cluster", clusterID, "x")
	wantAPIError(t, err, "431") // entity types are case-sensitive
	_, err = add("TOASTER", clusterID, "x")
	wantAPIError(t, err, "431")

	p := cs.Annotation.NewListAnnotationsParams()
	p.SetEntitytype("KUBERNETES_CLUSTER")
	p.SetEntityid(clusterID)
	l, err := cs.Annotation.ListAnnotations(p)
	if err != nil {
		t.Fatal(err)
	}
	if l.Count != 1 || l.Annotations[0].Id != first || l.Annotations[0].Entityname != "c1" {
		t.Fatalf("ListAnnotations: %+v", l.Annotations)
	}

	r, err := cs.Annotation.RemoveAnnotation(cs.Annotation.NewRemoveAnnotationParams(first))
	if err != nil || r.Id != first || r.Removed == "" {
		t.Fatalf("RemoveAnnotation: %+v, %v", r, err)
	}
	_, err = cs.Annotation.RemoveAnnotation(cs.Annotation.NewRemoveAnnotationParams(first))
	wantAPIError(t, err, "431") // already removed

	l, err = cs.Annotation.ListAnnotations(cs.Annotation.NewListAnnotationsParams())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, a := range l.Annotations {
		texts = append(texts, a.Annotation)
	}
	if diff := cmp.Diff([]string{"stray"}, texts); diff != "" {
		t.Errorf("annotations after remove (-want +got):\n%s", diff)
	}
}
