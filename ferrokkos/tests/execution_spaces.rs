//! Serial and Threads instances: names, concurrency, Kokkos Tools device IDs, fences, partitions.

use std::sync::OnceLock;

use ferrokkos::{
    DeviceType, Error, ExecutionSpace, HostSpace, InitSettings, Runtime, Serial, Threads,
    device_id, partition_space, partition_space_with_weights,
};

/// Four threads on purpose (more than this machine's cores is fine): partitions need room.
fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| ferrokkos::initialize(InitSettings::new().num_threads(4)).unwrap())
}

#[test]
fn default_instances_have_kokkos_names_and_device_ids() {
    runtime();
    let serial = Serial::default_instance().unwrap();
    let threads = Threads::default_instance().unwrap();
    assert_eq!(
        (serial.name(), serial.concurrency(), serial.instance_id()),
        ("Serial", 1, 1)
    );
    assert_eq!(
        (threads.name(), threads.concurrency(), threads.instance_id()),
        ("Threads", 4, 1)
    );
    assert_eq!(serial.device_id(), 0x0000_0001);
    assert_eq!(threads.device_id(), 0x0600_0001);
    assert_eq!(device_id(DeviceType::Cuda, 3, 5), (2 << 24) | (3 << 17) | 5);
    assert_eq!(threads.memory_space(), HostSpace);
    // The default instance is one instance: handles compare by instance number.
    assert_eq!(Threads::default_instance().unwrap().instance_id(), 1);
}

#[test]
fn fences_succeed_on_every_instance_and_globally() {
    runtime();
    Serial::default_instance().unwrap().fence("serial").unwrap();
    Threads::default_instance()
        .unwrap()
        .fence("threads")
        .unwrap();
    ferrokkos::fence("everything").unwrap();
}

#[test]
fn threads_partitions_split_the_pool_by_weight() {
    runtime();
    let all = Threads::default_instance().unwrap();
    let halves = partition_space(&all, 2).unwrap();
    assert_eq!(
        halves.iter().map(|p| p.concurrency()).collect::<Vec<_>>(),
        [2, 2]
    );
    let weighted = partition_space_with_weights(&all, &[1.0, 3.0]).unwrap();
    assert_eq!(
        weighted.iter().map(|p| p.concurrency()).collect::<Vec<_>>(),
        [1, 3]
    );
    // More parts than threads: every part runs on its caller alone.
    let many = partition_space(&all, 6).unwrap();
    assert!(many.iter().all(|p| p.concurrency() == 1));
    // A partition can be partitioned again.
    let quarter = partition_space(&halves[1], 2).unwrap();
    assert_eq!(
        quarter.iter().map(|p| p.concurrency()).collect::<Vec<_>>(),
        [1, 1]
    );
    // Kokkos requires at least one partition.
    assert!(matches!(
        partition_space(&all, 0),
        Err(ferrokkos::Error::InvalidArgument { .. })
    ));
}

#[test]
fn new_instances_get_increasing_ids_and_their_own_device_ids() {
    runtime();
    let all = Threads::default_instance().unwrap();
    let parts = partition_space(&all, 3).unwrap();
    let ids: Vec<u32> = parts.iter().map(|p| p.instance_id()).collect();
    // Increasing, not consecutive: tests running at the same time create instances too.
    assert!(ids.windows(2).all(|w| w[1] > w[0]), "{ids:?}");
    assert!(ids[0] > 1);
    for p in &parts {
        assert_eq!(p.device_id(), (6 << 24) | p.instance_id());
        p.fence("part").unwrap();
    }
    let serial_parts = partition_space(&Serial::default_instance().unwrap(), 2).unwrap();
    assert!(
        serial_parts
            .iter()
            .all(|p| p.concurrency() == 1 && p.instance_id() > 1)
    );
    assert_ne!(serial_parts[0].instance_id(), serial_parts[1].instance_id());
}

#[test]
fn partitions_are_usable_from_several_threads_at_once() {
    runtime();
    let parts = partition_space(&Threads::default_instance().unwrap(), 2).unwrap();
    std::thread::scope(|s| {
        for p in &parts {
            s.spawn(move || {
                for i in 0..100 {
                    p.fence(&format!("fence {i}")).unwrap();
                }
            });
        }
    });
}

#[test]
fn bad_partition_weights_are_errors() {
    runtime();
    let all = Threads::default_instance().unwrap();
    let e = partition_space_with_weights(&all, &[1.0, f64::INFINITY]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidArgument {
                operation: "partition_space",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "partition_space: weight 1 is inf; every weight must be finite and positive"
    );
    assert!(partition_space_with_weights(&Serial::default_instance().unwrap(), &[0.0]).is_err());
}
