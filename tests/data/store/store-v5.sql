BEGIN TRANSACTION;
CREATE TABLE benchmarks (
	id INTEGER NOT NULL, 
	run_id INTEGER NOT NULL, 
	position INTEGER NOT NULL, 
	suite TEXT NOT NULL, 
	name TEXT NOT NULL, 
	params JSON NOT NULL, 
	"key" TEXT NOT NULL, 
	mode VARCHAR(32) NOT NULL, 
	unit VARCHAR(32) NOT NULL, 
	direction VARCHAR(8) NOT NULL, 
	spec JSON NOT NULL, 
	status VARCHAR(16), 
	message TEXT, 
	fork_decisions JSON NOT NULL, 
	metric VARCHAR(16) DEFAULT 'time' NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_benchmarks_run_suite_key UNIQUE (run_id, suite, "key"), 
	FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);
INSERT INTO "benchmarks" VALUES(1,1,0,'wordstat','BenchmarkTokenize1','[["size", "100"], ["impl", "hash"]]','BenchmarkTokenize1[size=100,impl=hash]','go','ns/op','lower','{"package": "./wordstat", "binary": "wordstat.test"}','ok',NULL,'[{"stop": false, "reason": "static", "values": {"rciw": 0.01}, "warning": null}, {"stop": true, "reason": "static", "values": {"rciw": 0.02}, "warning": null}]','time');
INSERT INTO "benchmarks" VALUES(2,1,1,'wordstat','org.wordstat.Bench.count2','[["size", "12"]]','org.wordstat.Bench.count2[size=12]','thrpt','ops/s','higher','{"class": "Bench"}','failed','fork 2: crashed','[{"stop": false, "reason": "static", "values": {"rciw": 0.01}, "warning": null}]','time');
INSERT INTO "benchmarks" VALUES(3,1,2,'wordstat','BenchmarkTokenize3','[["size", "300"], ["impl", "hash"]]','BenchmarkTokenize3[size=300,impl=hash]','go','ns/op','lower','{"package": "./wordstat", "binary": "wordstat.test"}',NULL,NULL,'[]','cpu');
CREATE TABLE commits (
	sha VARCHAR(64) NOT NULL, 
	generation INTEGER, 
	committed_at DOUBLE, 
	parents JSON NOT NULL, 
	subject TEXT, 
	refs JSON NOT NULL, 
	PRIMARY KEY (sha)
);
CREATE TABLE fork_processes (
	id INTEGER NOT NULL, 
	run_id INTEGER NOT NULL, 
	benchmark TEXT NOT NULL, 
	fork_index INTEGER NOT NULL, 
	pgid INTEGER, 
	marker VARCHAR(64) NOT NULL, 
	host TEXT NOT NULL, 
	boot_id VARCHAR(64), 
	started_at DOUBLE NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_fork_processes_fork UNIQUE (run_id, benchmark, fork_index), 
	FOREIGN KEY(run_id) REFERENCES runs (id) ON DELETE CASCADE
);
CREATE TABLE forks (
	id INTEGER NOT NULL, 
	benchmark_id INTEGER NOT NULL, 
	fork_index INTEGER NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	started_at DOUBLE NOT NULL, 
	finished_at DOUBLE NOT NULL, 
	message TEXT, 
	warmup_decisions JSON NOT NULL, 
	machine JSON, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_forks_benchmark_index UNIQUE (benchmark_id, fork_index), 
	FOREIGN KEY(benchmark_id) REFERENCES benchmarks (id) ON DELETE CASCADE
);
INSERT INTO "forks" VALUES(1,1,1,'complete',1700000062.5,1700000064.75,NULL,'[{"stop": false, "reason": "below-minimum", "values": {"cv": 0.9760939245234157}, "warning": null}, {"stop": true, "reason": "static", "values": {"cv": 0.8201805493123605}, "warning": null}]','{"worker": "tcp://10.0.0.2:40123", "name": "bench-2", "host": "node2", "machine_key": "0000000000000002"}');
INSERT INTO "forks" VALUES(2,1,2,'lost',1700000065.0,1700000067.25,'lost: worker tcp://10.0.0.7:40123 left the cluster','[{"stop": false, "reason": "below-minimum", "values": {"cv": 0.04502915699010501}, "warning": null}, {"stop": true, "reason": "static", "values": {"cv": 0.13377436558285904}, "warning": null}]','{"worker": "tcp://10.0.0.1:40123", "name": "bench-1", "host": "node1", "machine_key": "0000000000000001"}');
INSERT INTO "forks" VALUES(3,1,3,'complete',1700000065.0,1700000067.25,NULL,'[{"stop": false, "reason": "below-minimum", "values": {"cv": 0.7402985880116689}, "warning": null}, {"stop": true, "reason": "static", "values": {"cv": 0.4953603782659919}, "warning": null}]','{"worker": "tcp://10.0.0.1:40123", "name": "bench-1", "host": "node1", "machine_key": "0000000000000001"}');
INSERT INTO "forks" VALUES(4,2,1,'complete',1700000122.5,1700000124.75,NULL,'[{"stop": false, "reason": "below-minimum", "values": {"cv": 0.0033252146940235816}, "warning": null}, {"stop": true, "reason": "static", "values": {"cv": 0.11510730067417962}, "warning": null}]',NULL);
INSERT INTO "forks" VALUES(5,2,2,'failed',1700000125.0,1700000127.25,'fork crashed: exit status 137 — üñíçødé kept','[{"stop": false, "reason": "below-minimum", "values": {"cv": 0.8188451366736301}, "warning": null}, {"stop": true, "reason": "static", "values": {"cv": 0.47342748932753353}, "warning": null}]',NULL);
INSERT INTO "forks" VALUES(6,3,1,'complete',1700000182.5,1700000184.75,NULL,'[{"stop": false, "reason": "below-minimum", "values": {"cv": 0.4564078332305801}, "warning": null}, {"stop": true, "reason": "static", "values": {"cv": 0.8560879693910616}, "warning": null}]',NULL);
CREATE TABLE iterations (
	fork_id INTEGER NOT NULL, 
	phase VARCHAR(12) NOT NULL, 
	idx INTEGER NOT NULL, 
	value_ns DOUBLE NOT NULL, 
	raw_value DOUBLE NOT NULL, 
	ops DOUBLE, 
	secondary JSON, 
	PRIMARY KEY (fork_id, phase, idx), 
	FOREIGN KEY(fork_id) REFERENCES forks (id) ON DELETE CASCADE
);
INSERT INTO "iterations" VALUES(1,'warmup',0,1.16535085729739648738e+02,1.16535085729739648738e+02,5614042.0,'{"B/op": 4.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(1,'warmup',1,1.04406696243269138336e+02,1.04406696243269138336e+02,9471684.0,'{"B/op": 38.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(1,'measurement',0,7.05766914265249880591e+01,7.05766914265249880591e+01,8890333.0,'{"B/op": 14.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(1,'measurement',1,7.78525170056895774459e+01,7.78525170056895774459e+01,6585273.0,'{"B/op": 54.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(1,'measurement',2,1.0102673286753146442e+02,1.0102673286753146442e+02,8359427.0,'{"B/op": 20.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(2,'warmup',0,9.81894306943076600191e+01,9.81894306943076600191e+01,1129918.0,'{"B/op": 52.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(2,'warmup',1,7.58471722395415213222e+01,7.58471722395415213222e+01,3889796.0,'{"B/op": 33.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(2,'measurement',0,9.02330996249610848246e+01,9.02330996249610848246e+01,8287295.0,'{"B/op": 25.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(3,'warmup',0,9.81894306943076600191e+01,9.81894306943076600191e+01,1129918.0,'{"B/op": 52.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(3,'warmup',1,7.58471722395415213222e+01,7.58471722395415213222e+01,3889796.0,'{"B/op": 33.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(3,'measurement',0,9.02330996249610848246e+01,9.02330996249610848246e+01,8287295.0,'{"B/op": 25.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(3,'measurement',1,6.27027494194062953161e+01,6.27027494194062953161e+01,6932888.0,'{"B/op": 17.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(3,'measurement',2,6.15974408460077569324e+01,6.15974408460077569324e+01,7071748.0,'{"B/op": 51.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(4,'warmup',0,1.1379377526848435309e+02,8.78782690565108694138e+06,5943604.0,NULL);
INSERT INTO "iterations" VALUES(4,'warmup',1,1.03524099967172872988e+02,9.65958651480279862841e+06,8383331.0,NULL);
INSERT INTO "iterations" VALUES(4,'measurement',0,1.07029237611301866197e+02,9.34324136393179371928e+06,8263727.0,NULL);
INSERT INTO "iterations" VALUES(4,'measurement',1,1.06006985159290081813e+02,9.43334062842521630255e+06,1289902.0,NULL);
INSERT INTO "iterations" VALUES(4,'measurement',2,8.19259964739869417371e+01,1.22061377711471468214e+07,9263250.0,NULL);
INSERT INTO "iterations" VALUES(5,'warmup',0,7.35602101479436072412e+01,1.35943059160490352659e+07,1547983.0,NULL);
INSERT INTO "iterations" VALUES(5,'warmup',1,1.1958203697723723735e+02,8.36245999213370680772e+06,463408.0,NULL);
INSERT INTO "iterations" VALUES(5,'measurement',0,1.32985170860458936205e+02,7.51963541144973132744e+06,5251709.0,NULL);
INSERT INTO "iterations" VALUES(6,'warmup',0,85.6738236402772,85.6738236402772,1510867.0,'{"B/op": 62.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(6,'warmup',1,8.39282986080510795545e+01,8.39282986080510795545e+01,1347832.0,'{"B/op": 38.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(6,'measurement',0,9.52847307928779230223e+01,9.52847307928779230223e+01,7151196.0,'{"B/op": 17.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(6,'measurement',1,1.45889496152451101805e+02,1.45889496152451101805e+02,8822194.0,'{"B/op": 24.0, "allocs/op": 1.0}');
INSERT INTO "iterations" VALUES(6,'measurement',2,1.54832417882886716137e+02,1.54832417882886716137e+02,7350895.0,'{"B/op": 22.0, "allocs/op": 1.0}');
CREATE TABLE runs (
	id INTEGER NOT NULL, 
	created_at DOUBLE NOT NULL, 
	finished_at DOUBLE, 
	status VARCHAR(16) NOT NULL, 
	label TEXT, 
	tool_version VARCHAR(64) NOT NULL, 
	"commit" VARCHAR(64), 
	dirty BOOLEAN, 
	machine JSON NOT NULL, 
	toolchain JSON NOT NULL, 
	config JSON NOT NULL, 
	machine_key VARCHAR(64), 
	PRIMARY KEY (id)
);
INSERT INTO "runs" VALUES(1,1.70000000012345600132e+09,1.79567401222101664546e+09,'interrupted','ci build #42','0.1.0','0123456789abcdef0123456789abcdef01234567',0,'{"cpu": "AMD EPYC", "cores": "2", "os": "Linux 6.8"}','{"java": "17.0.15", "jmh": "1.37", "go": "go1.26"}','{"suites": {"wordstat": {"forks": {"min": 2, "max": 3}, "iteration_time_s": 0.1}}, "filter": null, "zeta_first": [3, 2, 1]}','hw-0508413334df6abe');
CREATE TABLE schema_version (
	version INTEGER NOT NULL, 
	tool_version VARCHAR(64) NOT NULL, 
	PRIMARY KEY (version)
);
INSERT INTO "schema_version" VALUES(5,'0.1.0');
CREATE INDEX ix_runs_machine_commit ON runs (machine_key, "commit");
COMMIT;
