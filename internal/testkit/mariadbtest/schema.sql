-- The part of CloudStack's `cloud` database the exporter reads, as of CloudStack 4.21. Table and
-- column names and types are CloudStack's (setup/db/create-schema.sql and
-- engine/schema/src/main/resources/META-INF/db/schema-*.sql in apache/cloudstack). Only the columns
-- the exporter reads are kept, plus vm_instance.instance_name and user_vm.display_name, which the
-- seeding fills with values that differ from vm_instance.name so a test notices if the wrong one is
-- read. Foreign keys are kept where CloudStack has them on rows the tests delete (the VM map, the
-- port-forwarding rules); as in CloudStack there is none from kubernetes_cluster_vm_map.vm_id to
-- vm_instance, so a row may name a VM id that does not exist. Version.downgrade removes what older
-- releases lack. Statements end with a semicolon at the end of a line. testdata/cloudstack/<release>.txt
-- describes each release's tables and columns from CloudStack's own SQL at the release, line by
-- line; TestSchemaIsCloudStacks checks that this schema, at each release's Version, has exactly those.

-- create-schema.sql; uuid from schema-2214to30.sql (3.0).
CREATE TABLE `domain` (
  `id` bigint unsigned NOT NULL auto_increment,
  `uuid` varchar(40),
  `name` varchar(255),
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql; uuid from schema-2214to30.sql. type 5 is a project's own account.
CREATE TABLE `account` (
  `id` bigint unsigned NOT NULL auto_increment,
  `uuid` varchar(40),
  `account_name` varchar(100) COMMENT 'an account name set by the creator of the account, defaults to username for single accounts',
  `type` int(1) unsigned NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- schema-2214to30.sql (3.0).
CREATE TABLE `projects` (
  `id` bigint unsigned NOT NULL auto_increment,
  `uuid` varchar(40),
  `name` varchar(255) COMMENT 'project name',
  `project_account_id` bigint unsigned NOT NULL,
  `removed` datetime COMMENT 'date removed',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql; uuid from schema-2214to30.sql.
CREATE TABLE `data_center` (
  `id` bigint unsigned NOT NULL UNIQUE AUTO_INCREMENT,
  `uuid` varchar(40),
  `name` varchar(255),
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: the network offerings; network_mode (NATTED or ROUTED) from
-- schema-41910to42000.sql (4.20), where it is added as nsx_mode and renamed.
CREATE TABLE `network_offerings` (
  `id` bigint unsigned NOT NULL UNIQUE AUTO_INCREMENT COMMENT 'id',
  `network_mode` varchar(32) COMMENT 'mode in which the network would route traffic',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql; uuid from schema-2214to30.sql; network_acl_id from schema-410to420.sql
-- (4.2): the ACL list of a VPC tier, 2 being CloudStack's default_allow.
CREATE TABLE `networks` (
  `id` bigint unsigned NOT NULL AUTO_INCREMENT COMMENT 'id',
  `uuid` varchar(40),
  `network_offering_id` bigint unsigned NOT NULL COMMENT 'network offering id that this configuration is created from',
  `guest_type` char(32) COMMENT 'type of guest network; can be shared or isolated',
  `removed` datetime COMMENT 'date removed if not null',
  `vpc_id` bigint unsigned COMMENT 'vpc this network belongs to',
  `network_acl_id` bigint unsigned COMMENT 'network acl id',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql; uuid from schema-2214to30.sql. name is the name users see (user_vm_view.name,
-- listVirtualMachines' name); instance_name is the hypervisor's i-2-3-VM name.
CREATE TABLE `vm_instance` (
  `id` bigint unsigned UNIQUE NOT NULL,
  `uuid` varchar(40),
  `name` varchar(255) NOT NULL,
  `instance_name` varchar(255) NOT NULL COMMENT 'name of the vm instance running on the hosts',
  `state` varchar(32) NOT NULL,
  `created` datetime NOT NULL COMMENT 'date created',
  `removed` datetime COMMENT 'date removed if not null',
  `account_id` bigint unsigned NOT NULL COMMENT 'user id of owner',
  `domain_id` bigint unsigned NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: one row per user VM; system VMs and routers have none.
CREATE TABLE `user_vm` (
  `id` bigint unsigned UNIQUE NOT NULL,
  `display_name` varchar(255),
  `user_vm_type` varchar(255) DEFAULT "UserVM" COMMENT 'Defines the type of UserVM',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: the details of user VMs, user_vm_details up to 4.20, renamed
-- vm_instance_details by schema-42010to42100.sql (4.21); CKS keeps its login user there as
-- controlNodeLoginUser (schema-41600to41610.sql writes "core" for the VMs of older clusters).
CREATE TABLE `vm_instance_details` (
  `id` bigint unsigned NOT NULL auto_increment,
  `vm_id` bigint unsigned NOT NULL COMMENT 'vm id',
  `name` varchar(255) NOT NULL,
  `value` varchar(5120) NOT NULL,
  `display` tinyint(1) NOT NULL DEFAULT 1 COMMENT 'True if the detail can be displayed to the end user',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- schema-41310to41400.sql (4.14), unchanged since: the columns the version check reads.
CREATE TABLE `kubernetes_supported_version` (
  `id` bigint unsigned NOT NULL auto_increment,
  `uuid` varchar(40) DEFAULT NULL,
  `name` varchar(255) NOT NULL COMMENT 'the name of this Kubernetes version',
  `semantic_version` varchar(32) NOT NULL COMMENT 'the semantic version for this Kubernetes version',
  `zone_id` bigint unsigned DEFAULT NULL COMMENT 'the ID of the zone for which this Kubernetes version is made available',
  `state` char(32) DEFAULT NULL COMMENT 'the enabled or disabled state for this Kubernetes version',
  `created` datetime NOT NULL COMMENT 'date created',
  `removed` datetime COMMENT 'date removed or null, if still present',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: disk offerings, and before 4.17 the uuid, name and removed of each service
-- offering, whose service_offering row has the same id (from 4.17 the seeding writes none).
CREATE TABLE `disk_offering` (
  `id` bigint unsigned NOT NULL auto_increment,
  `name` varchar(255) NOT NULL,
  `uuid` varchar(40),
  `removed` datetime COMMENT 'date removed',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: a service offering's row; from schema-41610to41700.sql (4.17) it has its
-- own uuid, name, removed and state (Active or Inactive). Before 4.17 a service offering is a
-- disk_offering row of the same id, which holds its uuid, name and removed (Version.downgrade).
CREATE TABLE `service_offering` (
  `id` bigint unsigned NOT NULL,
  `uuid` varchar(40) UNIQUE DEFAULT NULL,
  `name` varchar(255) NOT NULL,
  `removed` datetime DEFAULT NULL COMMENT 'date when service offering was removed',
  `state` CHAR(40) NOT NULL DEFAULT 'Active' COMMENT 'state of service offering either Active or Inactive',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- schema-41310to41400.sql (4.14); control_node_count renamed from master_node_count in
-- schema-41520to41600.sql (4.16); cluster_type in schema-41810to41900.sql (4.19), which also makes
-- kubernetes_version_id NULL-able (NOT NULL before; the loader writes a NULL only where a test asks); etcd_node_count
-- and the node types' service offerings in schema-42010to42100.sql (4.21).
CREATE TABLE `kubernetes_cluster` (
  `id` bigint unsigned NOT NULL auto_increment,
  `uuid` varchar(40) DEFAULT NULL,
  `name` varchar(255) NOT NULL,
  `zone_id` bigint unsigned NOT NULL COMMENT 'the ID of the zone in which this Kubernetes cluster is deployed',
  `kubernetes_version_id` bigint unsigned NULL COMMENT 'the ID of the Kubernetes version of this Kubernetes cluster',
  `network_id` bigint unsigned COMMENT 'the ID of the network used by this Kubernetes cluster',
  `control_node_count` bigint NOT NULL default '0' COMMENT 'the number of the control nodes deployed for this Kubernetes cluster',
  `node_count` bigint NOT NULL default '0' COMMENT 'the number of the worker nodes deployed for this Kubernetes cluster',
  `account_id` bigint unsigned NOT NULL COMMENT 'the ID of owner account of this Kubernetes cluster',
  `domain_id` bigint unsigned NOT NULL COMMENT 'the ID of the domain of this cluster',
  `state` char(32) NOT NULL COMMENT 'the current state of this Kubernetes cluster',
  `created` datetime NOT NULL COMMENT 'date created',
  `removed` datetime COMMENT 'date removed or null, if still present',
  `cluster_type` varchar(64) DEFAULT 'CloudManaged' COMMENT 'type of cluster',
  `etcd_node_count` bigint unsigned COMMENT 'number of etcd nodes to be deployed for the Kubernetes cluster',
  `service_offering_id` bigint unsigned COMMENT 'service offering id for the cluster VM',
  `control_node_service_offering_id` bigint unsigned COMMENT 'service offering ID for Control Node(s)',
  `worker_node_service_offering_id` bigint unsigned COMMENT 'service offering ID for Worker Node(s)',
  `etcd_node_service_offering_id` bigint unsigned COMMENT 'service offering ID for etcd Nodes',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- schema-41310to41400.sql (4.14); control_node in schema-41520to41600.sql (4.16); etcd_node,
-- external_node and kubernetes_node_version in schema-42010to42100.sql (4.21).
CREATE TABLE `kubernetes_cluster_vm_map` (
  `id` bigint unsigned NOT NULL auto_increment,
  `cluster_id` bigint unsigned NOT NULL COMMENT 'the ID of the Kubernetes cluster',
  `vm_id` bigint unsigned NOT NULL COMMENT 'the ID of the VM',
  `control_node` tinyint(1) unsigned NOT NULL DEFAULT 0,
  `etcd_node` tinyint(1) unsigned NOT NULL DEFAULT 0 COMMENT 'indicates if the VM is an etcd node',
  `external_node` tinyint(1) unsigned NOT NULL DEFAULT 0 COMMENT 'indicates if the node was imported into the Kubernetes cluster',
  `kubernetes_node_version` varchar(40) COMMENT 'version of k8s the cluster node is on',
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_kubernetes_cluster_vm_map__cluster_id` FOREIGN KEY `fk_kubernetes_cluster_vm_map__cluster_id`(`cluster_id`) REFERENCES `kubernetes_cluster`(`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql; uuid from schema-2214to30.sql, removed from schema-430to440.sql. network_id
-- is the network the address is associated with (IPAddressVO.associatedWithNetworkId).
CREATE TABLE `user_ip_address` (
  `id` bigint unsigned NOT NULL UNIQUE auto_increment,
  `uuid` varchar(40),
  `public_ip_address` char(40) NOT NULL,
  `source_nat` int(1) unsigned NOT NULL default '0',
  `network_id` bigint unsigned COMMENT 'network this public ip address is associated with',
  `removed` datetime DEFAULT NULL COMMENT 'date removed',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: every rule of a network (purpose Firewall, PortForwarding, LoadBalancing, ...).
CREATE TABLE `firewall_rules` (
  `id` bigint unsigned NOT NULL auto_increment COMMENT 'id',
  `uuid` varchar(40),
  `ip_address_id` bigint unsigned COMMENT 'id of the corresponding ip address',
  `start_port` int(10) COMMENT 'starting port of a port range',
  `end_port` int(10) COMMENT 'end port of a port range',
  `state` char(32) NOT NULL COMMENT 'current state of this rule',
  `protocol` char(16) NOT NULL default 'TCP' COMMENT 'protocol to open these ports for',
  `purpose` char(32) NOT NULL COMMENT 'why are these ports opened?',
  `network_id` bigint unsigned NOT NULL COMMENT 'network id',
  `traffic_type` char(32) COMMENT 'the traffic type of the rule, can be Ingress or Egress',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: the part of a firewall_rules row of purpose PortForwarding.
CREATE TABLE `port_forwarding_rules` (
  `id` bigint unsigned NOT NULL COMMENT 'id',
  `instance_id` bigint unsigned NOT NULL COMMENT 'vm instance id',
  `dest_port_start` int(10) NOT NULL COMMENT 'starting port of the port range to map to',
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_port_forwarding_rules__id` FOREIGN KEY(`id`) REFERENCES `firewall_rules`(`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: the part of a firewall_rules row of purpose LoadBalancing; default_port_start
-- is the private port.
CREATE TABLE `load_balancing_rules` (
  `id` bigint unsigned NOT NULL,
  `default_port_start` int(10) NOT NULL COMMENT 'default private port range start',
  PRIMARY KEY (`id`),
  CONSTRAINT `fk_load_balancing_rules__id` FOREIGN KEY(`id`) REFERENCES `firewall_rules`(`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql: the VMs assigned to a load-balancer rule; revoke 1 while being removed.
CREATE TABLE `load_balancer_vm_map` (
  `load_balancer_id` bigint unsigned NOT NULL,
  `instance_id` bigint unsigned NOT NULL,
  `revoke` tinyint(1) unsigned NOT NULL DEFAULT 0 COMMENT '1 is when rule is set for Revoke',
  PRIMARY KEY (`load_balancer_id`, `instance_id`),
  CONSTRAINT `fk_load_balancer_vm_map__load_balancer_id` FOREIGN KEY(`load_balancer_id`) REFERENCES `load_balancing_rules`(`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- schema-410to420.sql (4.2): the items of the network ACL lists of VPC tiers.
CREATE TABLE `network_acl_item` (
  `id` bigint unsigned NOT NULL auto_increment COMMENT 'id',
  `uuid` varchar(40),
  `acl_id` bigint unsigned NOT NULL COMMENT 'network acl id',
  `start_port` int(10) COMMENT 'starting port of a port range',
  `end_port` int(10) COMMENT 'end port of a port range',
  `state` char(32) NOT NULL COMMENT 'current state of this rule',
  `protocol` char(16) NOT NULL default 'TCP' COMMENT 'protocol to open these ports for',
  `traffic_type` char(32) COMMENT 'the traffic type of the rule, can be Ingress or Egress',
  `action` varchar(10) NOT NULL COMMENT 'rule action, allow or deny',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql.
CREATE TABLE `nics` (
  `id` bigint unsigned NOT NULL UNIQUE AUTO_INCREMENT COMMENT 'id',
  `instance_id` bigint unsigned COMMENT 'vm instance id',
  `ip4_address` char(40) COMMENT 'ip4 address',
  `network_id` bigint unsigned NOT NULL COMMENT 'network configuration id',
  `default_nic` tinyint NOT NULL COMMENT 'None',
  `removed` datetime COMMENT 'date removed if not null',
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- create-schema.sql (setup/db/create-schema.sql at 4.14.0.0: its type index included); archived
-- from schema-410to420.sql; resource_id and resource_type from schema-41610to41700.sql (4.17).
-- The part the stuck check reads, when the command of a cluster's operation was submitted, and
-- the look-up of the event that explains a new finding (by its resource, 4.17 on).
CREATE TABLE `event` (
  `id` bigint unsigned NOT NULL auto_increment,
  `uuid` varchar(40),
  `account_id` bigint unsigned NOT NULL,
  `type` varchar(32) NOT NULL,
  `state` varchar(32) NOT NULL DEFAULT 'Completed',
  `description` varchar(1024) NOT NULL,
  `resource_id` bigint unsigned COMMENT 'ID of the resource associated with the event',
  `resource_type` varchar(32) COMMENT 'Type of the resource associated with the event',
  `created` datetime NOT NULL,
  `level` varchar(16) NOT NULL,
  `archived` tinyint(1) unsigned NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  INDEX `i_event__type_id`(`type`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8;
