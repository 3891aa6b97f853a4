table datakeycheck: id bigint NOT NULL
table datakeycheck: sealed text NOT NULL
table department: id bigint NOT NULL DEFAULT nextval('department_id_seq'::regclass)
table department: storeid bigint NOT NULL
table department: name text NOT NULL
table department: estimatedminutes bigint NOT NULL
table department: position bigint NOT NULL
table department: retired boolean NOT NULL DEFAULT false
table dooraction: id bigint NOT NULL DEFAULT nextval('dooraction_id_seq'::regclass)
table dooraction: storeid bigint NOT NULL
table dooraction: reservationid bigint
table dooraction: number bigint
table dooraction: action text NOT NULL
table dooraction: reason text NOT NULL
table dooraction: outcome text NOT NULL
table dooraction: userid bigint
table dooraction: at timestamp with time zone NOT NULL
table dooraction: kioskid bigint
table dooraction: staffname text
table doorlease: kioskid bigint NOT NULL
table doorlease: storeid bigint NOT NULL
table doorlease: version bigint NOT NULL DEFAULT 0
table doorlease: places bigint NOT NULL DEFAULT 0
table doorlease: held bigint NOT NULL DEFAULT 0
table doorlease: renewedat timestamp with time zone
table doorpin: userid bigint NOT NULL
table doorpin: pinhash text NOT NULL
table doorpin: setat timestamp with time zone NOT NULL
table doorstaff: userid bigint NOT NULL
table doorstaff: storeid bigint NOT NULL
table doorstaff: addedat timestamp with time zone NOT NULL
table emailtoken: tokenhash text NOT NULL
table emailtoken: userid bigint NOT NULL
table emailtoken: purpose text NOT NULL
table emailtoken: expiresat timestamp with time zone NOT NULL
table emailtoken: usedat timestamp with time zone
table emailtoken: newemail text
table formreply: key text NOT NULL
table formreply: at timestamp with time zone NOT NULL
table formreply: location text
table groupmanager: userid bigint NOT NULL
table groupmanager: groupid bigint NOT NULL
table kiosk: id bigint NOT NULL DEFAULT nextval('kiosk_id_seq'::regclass)
table kiosk: storeid bigint NOT NULL
table kiosk: label text NOT NULL
table kiosk: keyhash text NOT NULL
table kiosk: createdat timestamp with time zone NOT NULL
table kiosk: revokedat timestamp with time zone
table kiosk: role text NOT NULL DEFAULT 'door'::text
table kioskcontact: kioskid bigint NOT NULL
table kioskcontact: seenat timestamp with time zone NOT NULL
table kioskcontact: version text NOT NULL
table kioskcontact: queued bigint NOT NULL
table kioskcontact: clockoffsetms bigint
table mailpace: client text NOT NULL
table mailpace: mark timestamp with time zone NOT NULL
table maintenancenotice: id bigint NOT NULL DEFAULT nextval('maintenancenotice_id_seq'::regclass)
table maintenancenotice: windowid bigint NOT NULL
table maintenancenotice: reservationid bigint NOT NULL
table maintenancenotice: kind text NOT NULL
table maintenancenotice: createdat timestamp with time zone NOT NULL
table maintenancenotice: dispatchedat timestamp with time zone
table maintenancewindow: id bigint NOT NULL DEFAULT nextval('maintenancewindow_id_seq'::regclass)
table maintenancewindow: startsat timestamp with time zone NOT NULL
table maintenancewindow: endsat timestamp with time zone NOT NULL
table maintenancewindow: announcefrom timestamp with time zone NOT NULL
table maintenancewindow: timezone text NOT NULL
table maintenancewindow: createdat timestamp with time zone NOT NULL
table maintenancewindow: cancelledat timestamp with time zone
table managedstore: userid bigint NOT NULL
table managedstore: storeid bigint NOT NULL
table notice: id bigint NOT NULL DEFAULT nextval('notice_id_seq'::regclass)
table notice: reservationid bigint NOT NULL
table notice: kind text NOT NULL
table notice: reason text
table notice: createdat timestamp with time zone NOT NULL
table notice: dispatchedat timestamp with time zone
table notice: emailonly boolean NOT NULL DEFAULT false
table openinginterval: storeid bigint NOT NULL
table openinginterval: weekday bigint NOT NULL
table openinginterval: opens bigint NOT NULL
table openinginterval: closes bigint NOT NULL
table outboxmessage: id bigint NOT NULL DEFAULT nextval('outboxmessage_id_seq'::regclass)
table outboxmessage: recipient text NOT NULL
table outboxmessage: subject text NOT NULL
table outboxmessage: body text NOT NULL
table outboxmessage: createdat timestamp with time zone NOT NULL
table outboxmessage: attempts bigint NOT NULL DEFAULT 0
table outboxmessage: nextattemptat timestamp with time zone NOT NULL
table outboxmessage: sentat timestamp with time zone
table outboxmessage: lasterror text
table outboxmessage: recipientkey text
table outboxmessage: requestedby text
table outboxmessage: priority bigint NOT NULL DEFAULT 1
table outboxmessage: reservationid bigint
table outboxmessage: noticekind text
table pushmessage: id bigint NOT NULL DEFAULT nextval('pushmessage_id_seq'::regclass)
table pushmessage: pushsubscriptionid bigint NOT NULL
table pushmessage: payload text NOT NULL
table pushmessage: urgency text NOT NULL
table pushmessage: createdat timestamp with time zone NOT NULL
table pushmessage: expiresat timestamp with time zone NOT NULL
table pushmessage: attempts bigint NOT NULL DEFAULT 0
table pushmessage: nextattemptat timestamp with time zone NOT NULL
table pushmessage: sentat timestamp with time zone
table pushmessage: lasterror text
table pushmessage: noticeid bigint
table pushsubscription: id bigint NOT NULL DEFAULT nextval('pushsubscription_id_seq'::regclass)
table pushsubscription: userid bigint NOT NULL
table pushsubscription: endpoint text NOT NULL
table pushsubscription: p256dh text NOT NULL
table pushsubscription: auth text NOT NULL
table pushsubscription: createdat timestamp with time zone NOT NULL
table pushsubscription: failures bigint NOT NULL DEFAULT 0
table reservation: id bigint NOT NULL DEFAULT nextval('reservation_id_seq'::regclass)
table reservation: storeid bigint NOT NULL
table reservation: userid bigint
table reservation: kind text NOT NULL
table reservation: walkin boolean NOT NULL DEFAULT false
table reservation: day bigint NOT NULL
table reservation: number bigint NOT NULL
table reservation: people bigint NOT NULL
table reservation: residenceminutes bigint NOT NULL
table reservation: travelmode text
table reservation: slotstart timestamp with time zone
table reservation: status text NOT NULL
table reservation: createdat timestamp with time zone NOT NULL
table reservation: calledat timestamp with time zone
table reservation: enteredat timestamp with time zone
table reservation: exitedat timestamp with time zone
table reservation: endedat timestamp with time zone
table reservation: requestkey text
table reservation: travelmetres bigint
table reservation: leftat timestamp with time zone
table reservation: remindedat timestamp with time zone
table reservation: confirmedat timestamp with time zone
table reservation: expectedentry timestamp with time zone
table reservation: pace double precision
table reservation: priority boolean NOT NULL DEFAULT false
table reservation: queueposition bigint
table reservationdepartment: reservationid bigint NOT NULL
table reservationdepartment: departmentid bigint NOT NULL
table scanreceipt: kioskid bigint NOT NULL
table scanreceipt: scanid text NOT NULL
table scanreceipt: scannedat timestamp with time zone NOT NULL
table scanreceipt: receivedat timestamp with time zone NOT NULL
table scanreceipt: answer text NOT NULL
table schemamigration: version bigint NOT NULL
table schemamigration: name text NOT NULL
table schemamigration: appliedat timestamp with time zone NOT NULL DEFAULT now()
table session: idhash text NOT NULL
table session: userid bigint NOT NULL
table session: csrftoken text NOT NULL
table session: createdat timestamp with time zone NOT NULL
table session: lastseenat timestamp with time zone NOT NULL
table signinfailure: id bigint NOT NULL DEFAULT nextval('signinfailure_id_seq'::regclass)
table signinfailure: account text NOT NULL
table signinfailure: clientaddress text NOT NULL
table signinfailure: at timestamp with time zone NOT NULL
table specialhours: storeid bigint NOT NULL
table specialhours: day bigint NOT NULL
table specialhours: opens bigint NOT NULL
table specialhours: closes bigint NOT NULL
table specialhours: reason text NOT NULL
table staffpin: storeid bigint NOT NULL
table staffpin: pinhash text NOT NULL
table staffpin: setat timestamp with time zone NOT NULL
table staffpin: setby bigint
table store: id bigint NOT NULL DEFAULT nextval('store_id_seq'::regclass)
table store: name text NOT NULL
table store: address text NOT NULL
table store: phone text NOT NULL
table store: latitude double precision NOT NULL
table store: longitude double precision NOT NULL
table store: capacity bigint NOT NULL
table store: timezone text NOT NULL
table store: walkinpercent bigint NOT NULL DEFAULT 20
table store: slotminutes bigint NOT NULL DEFAULT 15
table store: slotcapacity bigint NOT NULL DEFAULT 1
table store: entrybeforeminutes bigint NOT NULL DEFAULT 10
table store: entryafterminutes bigint NOT NULL DEFAULT 15
table store: callgraceminutes bigint NOT NULL DEFAULT 10
table store: priorityevery bigint NOT NULL DEFAULT 0
table store: priorityonline boolean NOT NULL DEFAULT false
table store: largestparty bigint NOT NULL DEFAULT 2
table storechange: id bigint NOT NULL DEFAULT nextval('storechange_id_seq'::regclass)
table storechange: storeid bigint NOT NULL
table storechange: userid bigint
table storechange: at timestamp with time zone NOT NULL
table storechange: field text NOT NULL
table storechange: before text NOT NULL
table storechange: after text NOT NULL
table storeclosure: storeid bigint NOT NULL
table storeclosure: day bigint NOT NULL
table storeclosure: reason text NOT NULL
table storedepartmenthour: storeid bigint NOT NULL
table storedepartmenthour: departmentid bigint NOT NULL
table storedepartmenthour: hour bigint NOT NULL
table storedepartmenthour: entries bigint NOT NULL DEFAULT 0
table storegroup: id bigint NOT NULL DEFAULT nextval('storegroup_id_seq'::regclass)
table storegroup: name text NOT NULL
table storegroup: createdat timestamp with time zone NOT NULL
table storegroupmember: storeid bigint NOT NULL
table storegroupmember: groupid bigint NOT NULL
table storehour: storeid bigint NOT NULL
table storehour: hour bigint NOT NULL
table storehour: entries double precision NOT NULL DEFAULT 0
table storehour: entrypeople double precision NOT NULL DEFAULT 0
table storehour: lineups double precision NOT NULL DEFAULT 0
table storehour: walkins double precision NOT NULL DEFAULT 0
table storehour: bookings double precision NOT NULL DEFAULT 0
table storehour: waitseconds double precision NOT NULL DEFAULT 0
table storehour: waitcount double precision NOT NULL DEFAULT 0
table storehour: callseconds double precision NOT NULL DEFAULT 0
table storehour: calls double precision NOT NULL DEFAULT 0
table storehour: doorseconds double precision NOT NULL DEFAULT 0
table storehour: doorcount double precision NOT NULL DEFAULT 0
table storehour: exits double precision NOT NULL DEFAULT 0
table storehour: declaredseconds double precision NOT NULL DEFAULT 0
table storehour: actualseconds double precision NOT NULL DEFAULT 0
table storehour: personseconds double precision NOT NULL DEFAULT 0
table storehour: peakinside double precision NOT NULL DEFAULT 0
table storehour: noshows double precision NOT NULL DEFAULT 0
table storehour: expiries double precision NOT NULL DEFAULT 0
table storehour: cancellations double precision NOT NULL DEFAULT 0
table storehour: priorityentries double precision NOT NULL DEFAULT 0
table storehour: prioritywaitseconds double precision NOT NULL DEFAULT 0
table storeload: storeid bigint NOT NULL
table storeload: measuredvisits bigint NOT NULL DEFAULT 0
table storeload: declaredseconds double precision NOT NULL DEFAULT 0
table storeload: actualseconds double precision NOT NULL DEFAULT 0
table storeload: logratiosum double precision NOT NULL DEFAULT 0
table storeload: logratiosquares double precision NOT NULL DEFAULT 0
table storeload: loggedvisits bigint NOT NULL DEFAULT 0
table storeload: calls bigint NOT NULL DEFAULT 0
table storeload: noshows bigint NOT NULL DEFAULT 0
table storeload: calltodoorseconds double precision NOT NULL DEFAULT 0
table storeload: athandentries bigint NOT NULL DEFAULT 0
table storeload: entries double precision NOT NULL DEFAULT 0
table storeload: entryerrorsum double precision NOT NULL DEFAULT 0
table storeload: entryerrorsquares double precision NOT NULL DEFAULT 0
table storeload: unscannedvisits bigint NOT NULL DEFAULT 0
table storeload: visitsbeforeunscanned bigint NOT NULL DEFAULT 0
table storeretirement: storeid bigint NOT NULL
table storeretirement: retiredat timestamp with time zone NOT NULL
table storeretirement: reason text NOT NULL
table storesigningkey: storeid bigint NOT NULL
table storesigningkey: keyid bigint NOT NULL
table storesigningkey: createdat timestamp with time zone NOT NULL
table storesigningkey: retiresat timestamp with time zone
table storeversion: storeid bigint NOT NULL
table storeversion: version bigint NOT NULL DEFAULT 0
table storeversion: changedby xid8
table supportaction: id bigint NOT NULL DEFAULT nextval('supportaction_id_seq'::regclass)
table supportaction: staffid bigint
table supportaction: customerid bigint
table supportaction: email text NOT NULL
table supportaction: action text NOT NULL
table supportaction: reservationid bigint
table supportaction: reason text NOT NULL
table supportaction: at timestamp with time zone NOT NULL
table ticketblock: id bigint NOT NULL DEFAULT nextval('ticketblock_id_seq'::regclass)
table ticketblock: storeid bigint NOT NULL
table ticketblock: kioskid bigint NOT NULL
table ticketblock: day bigint NOT NULL
table ticketblock: firstnumber bigint NOT NULL
table ticketblock: firstreservationid bigint NOT NULL
table ticketblock: size bigint NOT NULL
table ticketblock: createdat timestamp with time zone NOT NULL
table user: id bigint NOT NULL DEFAULT nextval('user_id_seq'::regclass)
table user: email text NOT NULL
table user: displayname text NOT NULL
table user: passwordhash text NOT NULL
table user: role text NOT NULL DEFAULT 'customer'::text
table user: emailconfirmedat timestamp with time zone
table user: travelmode text NOT NULL DEFAULT 'walking'::text
table user: loyaltyoptin boolean NOT NULL DEFAULT false
table user: createdat timestamp with time zone NOT NULL
table user: notifyemail boolean NOT NULL DEFAULT true
table user: notifypush boolean NOT NULL DEFAULT true
table user: language text NOT NULL DEFAULT 'en'::text
table user: termsversion bigint
table user: termsacceptedat timestamp with time zone
table user: emailkey text
table user: pushlostat timestamp with time zone
table user: lastsigninat timestamp with time zone
table user: dormantwarnedat timestamp with time zone
table waitlist: id bigint NOT NULL DEFAULT nextval('waitlist_id_seq'::regclass)
table waitlist: storeid bigint NOT NULL
table waitlist: userid bigint NOT NULL
table waitlist: slotstart timestamp with time zone NOT NULL
table waitlist: people bigint NOT NULL
table waitlist: residenceminutes bigint NOT NULL
table waitlist: status text NOT NULL
table waitlist: createdat timestamp with time zone NOT NULL
table waitlist: offeredat timestamp with time zone
table waitlist: offerexpiresat timestamp with time zone
table waitlist: endedat timestamp with time zone
table waitlist: reservationid bigint
table waitlist: requestkey text NOT NULL
table waitlistnotice: id bigint NOT NULL DEFAULT nextval('waitlistnotice_id_seq'::regclass)
table waitlistnotice: waitlistid bigint NOT NULL
table waitlistnotice: kind text NOT NULL
table waitlistnotice: createdat timestamp with time zone NOT NULL
table waitlistnotice: dispatchedat timestamp with time zone
table walkincontact: reservationid bigint NOT NULL
table walkincontact: email text NOT NULL
table walkincontact: language text NOT NULL
table walkincontact: createdat timestamp with time zone NOT NULL
constraint "user" user_language_check: CHECK ((language = ANY (ARRAY['en'::text, 'it'::text])))
constraint "user" user_pkey: PRIMARY KEY (id)
constraint "user" user_role_check: CHECK ((role = ANY (ARRAY['customer'::text, 'staff'::text, 'support'::text, 'manager'::text, 'admin'::text])))
constraint "user" user_termsversion_check: CHECK ((termsversion >= 1))
constraint "user" user_travelmode_check: CHECK ((travelmode = ANY (ARRAY['walking'::text, 'car'::text, 'transit'::text])))
constraint datakeycheck datakeycheck_id_check: CHECK ((id = 1))
constraint datakeycheck datakeycheck_pkey: PRIMARY KEY (id)
constraint department department_estimatedminutes_check: CHECK (((estimatedminutes >= 1) AND (estimatedminutes <= 240)))
constraint department department_name_check: CHECK (((length(name) >= 1) AND (length(name) <= 60)))
constraint department department_pkey: PRIMARY KEY (id)
constraint department department_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint department department_storeid_name_key: UNIQUE (storeid, name)
constraint dooraction dooraction_action_check: CHECK ((action = ANY (ARRAY['recall'::text, 'noShow'::text, 'admit'::text, 'letOut'::text, 'leftUnscanned'::text, 'scanRefused'::text, 'offlineConflict'::text, 'priority'::text, 'offlineDoor'::text, 'phoneIn'::text])))
constraint dooraction dooraction_kioskid_fkey: FOREIGN KEY (kioskid) REFERENCES kiosk(id) ON DELETE SET NULL
constraint dooraction dooraction_pkey: PRIMARY KEY (id)
constraint dooraction dooraction_reason_check: CHECK ((length(reason) <= 1200))
constraint dooraction dooraction_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE SET NULL
constraint dooraction dooraction_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint dooraction dooraction_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE SET NULL
constraint doorlease doorlease_check: CHECK ((held >= places))
constraint doorlease doorlease_kioskid_fkey: FOREIGN KEY (kioskid) REFERENCES kiosk(id) ON DELETE CASCADE
constraint doorlease doorlease_pkey: PRIMARY KEY (kioskid)
constraint doorlease doorlease_places_check: CHECK ((places >= 0))
constraint doorlease doorlease_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint doorpin doorpin_pkey: PRIMARY KEY (userid)
constraint doorpin doorpin_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint doorstaff doorstaff_pkey: PRIMARY KEY (userid, storeid)
constraint doorstaff doorstaff_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint doorstaff doorstaff_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint emailtoken emailtoken_pkey: PRIMARY KEY (tokenhash)
constraint emailtoken emailtoken_purpose_check: CHECK ((purpose = ANY (ARRAY['confirm'::text, 'reset'::text, 'changeEmail'::text])))
constraint emailtoken emailtoken_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint formreply formreply_key_check: CHECK ((length(key) <= 64))
constraint formreply formreply_location_check: CHECK ((length(location) <= 2000))
constraint formreply formreply_pkey: PRIMARY KEY (key)
constraint groupmanager groupmanager_groupid_fkey: FOREIGN KEY (groupid) REFERENCES storegroup(id) ON DELETE CASCADE
constraint groupmanager groupmanager_pkey: PRIMARY KEY (userid, groupid)
constraint groupmanager groupmanager_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint kioskcontact kioskcontact_kioskid_fkey: FOREIGN KEY (kioskid) REFERENCES kiosk(id) ON DELETE CASCADE
constraint kioskcontact kioskcontact_pkey: PRIMARY KEY (kioskid)
constraint kioskcontact kioskcontact_queued_check: CHECK ((queued >= 0))
constraint kioskcontact kioskcontact_version_check: CHECK ((length(version) <= 40))
constraint kiosk kiosk_keyhash_key: UNIQUE (keyhash)
constraint kiosk kiosk_label_check: CHECK (((length(label) >= 1) AND (length(label) <= 60)))
constraint kiosk kiosk_pkey: PRIMARY KEY (id)
constraint kiosk kiosk_role_check: CHECK ((role = ANY (ARRAY['dispenser'::text, 'door'::text])))
constraint kiosk kiosk_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint mailpace mailpace_client_check: CHECK ((length(client) <= 64))
constraint mailpace mailpace_pkey: PRIMARY KEY (client)
constraint maintenancenotice maintenancenotice_kind_check: CHECK ((kind = ANY (ARRAY['scheduled'::text, 'cancelled'::text])))
constraint maintenancenotice maintenancenotice_pkey: PRIMARY KEY (id)
constraint maintenancenotice maintenancenotice_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE CASCADE
constraint maintenancenotice maintenancenotice_windowid_fkey: FOREIGN KEY (windowid) REFERENCES maintenancewindow(id) ON DELETE CASCADE
constraint maintenancenotice maintenancenotice_windowid_reservationid_kind_key: UNIQUE (windowid, reservationid, kind)
constraint maintenancewindow maintenancewindow_check: CHECK (((endsat > startsat) AND (announcefrom <= startsat)))
constraint maintenancewindow maintenancewindow_pkey: PRIMARY KEY (id)
constraint maintenancewindow maintenancewindow_timezone_check: CHECK (((length(timezone) >= 1) AND (length(timezone) <= 64)))
constraint managedstore managedstore_pkey: PRIMARY KEY (userid, storeid)
constraint managedstore managedstore_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint managedstore managedstore_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint notice notice_kind_check: CHECK ((kind = ANY (ARRAY['leaveNow'::text, 'yourTurn'::text, 'reminder'::text, 'cancelled'::text, 'expired'::text, 'autoCancelled'::text])))
constraint notice notice_pkey: PRIMARY KEY (id)
constraint notice notice_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE CASCADE
constraint notice notice_reservationid_kind_key: UNIQUE (reservationid, kind)
constraint openinginterval openinginterval_check: CHECK (((closes > opens) AND (closes <= (opens + 1440))))
constraint openinginterval openinginterval_opens_check: CHECK (((opens >= 0) AND (opens < 1440)))
constraint openinginterval openinginterval_pkey: PRIMARY KEY (storeid, weekday, opens)
constraint openinginterval openinginterval_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint openinginterval openinginterval_weekday_check: CHECK (((weekday >= 1) AND (weekday <= 7)))
constraint outboxmessage outboxmessage_noticekind_check: CHECK ((noticekind = ANY (ARRAY['leaveNow'::text, 'yourTurn'::text, 'reminder'::text, 'cancelled'::text, 'expired'::text, 'autoCancelled'::text])))
constraint outboxmessage outboxmessage_pkey: PRIMARY KEY (id)
constraint outboxmessage outboxmessage_priority_check: CHECK (((priority >= 0) AND (priority <= 3)))
constraint outboxmessage outboxmessage_requestedby_check: CHECK ((length(requestedby) <= 64))
constraint outboxmessage outboxmessage_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE SET NULL
constraint pushmessage pushmessage_noticeid_fkey: FOREIGN KEY (noticeid) REFERENCES notice(id) ON DELETE SET NULL
constraint pushmessage pushmessage_pkey: PRIMARY KEY (id)
constraint pushmessage pushmessage_pushsubscriptionid_fkey: FOREIGN KEY (pushsubscriptionid) REFERENCES pushsubscription(id) ON DELETE CASCADE
constraint pushsubscription pushsubscription_auth_check: CHECK ((length(auth) <= 100))
constraint pushsubscription pushsubscription_endpoint_check: CHECK (((length(endpoint) >= 10) AND (length(endpoint) <= 1000)))
constraint pushsubscription pushsubscription_endpoint_key: UNIQUE (endpoint)
constraint pushsubscription pushsubscription_p256dh_check: CHECK ((length(p256dh) <= 200))
constraint pushsubscription pushsubscription_pkey: PRIMARY KEY (id)
constraint pushsubscription pushsubscription_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint reservationdepartment reservationdepartment_departmentid_fkey: FOREIGN KEY (departmentid) REFERENCES department(id) ON DELETE CASCADE
constraint reservationdepartment reservationdepartment_pkey: PRIMARY KEY (reservationid, departmentid)
constraint reservationdepartment reservationdepartment_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE CASCADE
constraint reservation reservation_check: CHECK (((kind = 'booking'::text) = (slotstart IS NOT NULL)))
constraint reservation reservation_check1: CHECK ((NOT (walkin AND ((kind = 'booking'::text) OR (userid IS NOT NULL)))))
constraint reservation reservation_check2: CHECK (((exitedat IS NULL) OR (enteredat IS NOT NULL)))
constraint reservation reservation_kind_check: CHECK ((kind = ANY (ARRAY['lineUp'::text, 'booking'::text])))
constraint reservation reservation_number_check: CHECK ((number >= 1))
constraint reservation reservation_people_check: CHECK (((people >= 1) AND (people <= 8)))
constraint reservation reservation_pkey: PRIMARY KEY (id)
constraint reservation reservation_residenceminutes_check: CHECK (((residenceminutes >= 5) AND (residenceminutes <= 240)))
constraint reservation reservation_status_check: CHECK ((status = ANY (ARRAY['waiting'::text, 'called'::text, 'booked'::text, 'inside'::text, 'done'::text, 'cancelled'::text, 'expired'::text])))
constraint reservation reservation_storeid_day_number_key: UNIQUE (storeid, day, number)
constraint reservation reservation_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint reservation reservation_travelmetres_check: CHECK (((travelmetres IS NULL) OR ((travelmetres >= 0) AND (travelmetres <= 1000000))))
constraint reservation reservation_travelmode_check: CHECK (((travelmode IS NULL) OR (travelmode = ANY (ARRAY['walking'::text, 'car'::text, 'transit'::text]))))
constraint reservation reservation_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE SET NULL
constraint scanreceipt scanreceipt_kioskid_fkey: FOREIGN KEY (kioskid) REFERENCES kiosk(id) ON DELETE CASCADE
constraint scanreceipt scanreceipt_pkey: PRIMARY KEY (kioskid, scanid)
constraint scanreceipt scanreceipt_scanid_check: CHECK (((length(scanid) >= 16) AND (length(scanid) <= 64)))
constraint schemamigration schemamigration_pkey: PRIMARY KEY (version)
constraint session session_pkey: PRIMARY KEY (idhash)
constraint session session_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint signinfailure signinfailure_pkey: PRIMARY KEY (id)
constraint specialhours specialhours_check: CHECK (((closes > opens) AND (closes <= (opens + 1440))))
constraint specialhours specialhours_opens_check: CHECK (((opens >= 0) AND (opens <= 1439)))
constraint specialhours specialhours_pkey: PRIMARY KEY (storeid, day, opens)
constraint specialhours specialhours_reason_check: CHECK ((length(reason) <= 100))
constraint specialhours specialhours_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint staffpin staffpin_pkey: PRIMARY KEY (storeid)
constraint staffpin staffpin_setby_fkey: FOREIGN KEY (setby) REFERENCES "user"(id) ON DELETE SET NULL
constraint staffpin staffpin_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storechange storechange_pkey: PRIMARY KEY (id)
constraint storechange storechange_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storechange storechange_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE SET NULL
constraint storeclosure storeclosure_pkey: PRIMARY KEY (storeid, day)
constraint storeclosure storeclosure_reason_check: CHECK ((length(reason) <= 100))
constraint storeclosure storeclosure_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storedepartmenthour storedepartmenthour_departmentid_fkey: FOREIGN KEY (departmentid) REFERENCES department(id) ON DELETE CASCADE
constraint storedepartmenthour storedepartmenthour_pkey: PRIMARY KEY (storeid, departmentid, hour)
constraint storedepartmenthour storedepartmenthour_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storegroupmember storegroupmember_groupid_fkey: FOREIGN KEY (groupid) REFERENCES storegroup(id) ON DELETE CASCADE
constraint storegroupmember storegroupmember_pkey: PRIMARY KEY (storeid)
constraint storegroupmember storegroupmember_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storegroup storegroup_name_check: CHECK (((length(name) >= 1) AND (length(name) <= 60)))
constraint storegroup storegroup_name_key: UNIQUE (name)
constraint storegroup storegroup_pkey: PRIMARY KEY (id)
constraint storehour storehour_pkey: PRIMARY KEY (storeid, hour)
constraint storehour storehour_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storeload storeload_pkey: PRIMARY KEY (storeid)
constraint storeload storeload_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storeretirement storeretirement_pkey: PRIMARY KEY (storeid)
constraint storeretirement storeretirement_reason_check: CHECK ((length(reason) <= 200))
constraint storeretirement storeretirement_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint storesigningkey storesigningkey_keyid_check: CHECK (((keyid >= 1) AND (keyid <= 65535)))
constraint storesigningkey storesigningkey_pkey: PRIMARY KEY (storeid, keyid)
constraint storesigningkey storesigningkey_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint store store_address_check: CHECK (((length(address) >= 1) AND (length(address) <= 200)))
constraint store store_callgraceminutes_check: CHECK (((callgraceminutes >= 1) AND (callgraceminutes <= 60)))
constraint store store_capacity_check: CHECK (((capacity >= 1) AND (capacity <= 10000)))
constraint store store_entryafterminutes_check: CHECK (((entryafterminutes >= 0) AND (entryafterminutes <= 60)))
constraint store store_entrybeforeminutes_check: CHECK (((entrybeforeminutes >= 0) AND (entrybeforeminutes <= 60)))
constraint store store_largestparty_check: CHECK (((largestparty >= 1) AND (largestparty <= 8)))
constraint store store_latitude_check: CHECK (((latitude >= ('-90'::integer)::double precision) AND (latitude <= (90)::double precision)))
constraint store store_longitude_check: CHECK (((longitude >= ('-180'::integer)::double precision) AND (longitude <= (180)::double precision)))
constraint store store_name_check: CHECK (((length(name) >= 1) AND (length(name) <= 100)))
constraint store store_phone_check: CHECK ((length(phone) <= 40))
constraint store store_pkey: PRIMARY KEY (id)
constraint store store_priorityevery_check: CHECK (((priorityevery >= 0) AND (priorityevery <= 10)))
constraint store store_slotcapacity_check: CHECK (((slotcapacity >= 1) AND (slotcapacity <= 10000)))
constraint store store_slotminutes_check: CHECK ((slotminutes = ANY (ARRAY[(10)::bigint, (15)::bigint, (20)::bigint, (30)::bigint, (60)::bigint])))
constraint store store_walkinpercent_check: CHECK (((walkinpercent >= 0) AND (walkinpercent <= 90)))
constraint storeversion storeversion_pkey: PRIMARY KEY (storeid)
constraint storeversion storeversion_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint supportaction supportaction_action_check: CHECK ((action = ANY (ARRAY['lookup'::text, 'cancel'::text, 'close'::text])))
constraint supportaction supportaction_customerid_fkey: FOREIGN KEY (customerid) REFERENCES "user"(id) ON DELETE SET NULL
constraint supportaction supportaction_pkey: PRIMARY KEY (id)
constraint supportaction supportaction_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE SET NULL
constraint supportaction supportaction_staffid_fkey: FOREIGN KEY (staffid) REFERENCES "user"(id) ON DELETE SET NULL
constraint ticketblock ticketblock_firstnumber_check: CHECK ((firstnumber >= 1))
constraint ticketblock ticketblock_firstreservationid_check: CHECK ((firstreservationid >= 1))
constraint ticketblock ticketblock_kioskid_fkey: FOREIGN KEY (kioskid) REFERENCES kiosk(id) ON DELETE CASCADE
constraint ticketblock ticketblock_pkey: PRIMARY KEY (id)
constraint ticketblock ticketblock_size_check: CHECK (((size >= 1) AND (size <= 100)))
constraint ticketblock ticketblock_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint waitlistnotice waitlistnotice_kind_check: CHECK ((kind = ANY (ARRAY['offer'::text, 'passed'::text, 'closed'::text])))
constraint waitlistnotice waitlistnotice_pkey: PRIMARY KEY (id)
constraint waitlistnotice waitlistnotice_waitlistid_fkey: FOREIGN KEY (waitlistid) REFERENCES waitlist(id) ON DELETE CASCADE
constraint waitlistnotice waitlistnotice_waitlistid_kind_key: UNIQUE (waitlistid, kind)
constraint waitlist waitlist_check: CHECK ((((status = 'offered'::text) = ((offerexpiresat IS NOT NULL) AND (endedat IS NULL))) OR (status <> ALL (ARRAY['waiting'::text, 'offered'::text]))))
constraint waitlist waitlist_people_check: CHECK (((people >= 1) AND (people <= 8)))
constraint waitlist waitlist_pkey: PRIMARY KEY (id)
constraint waitlist waitlist_requestkey_check: CHECK (((length(requestkey) >= 16) AND (length(requestkey) <= 64)))
constraint waitlist waitlist_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE SET NULL
constraint waitlist waitlist_residenceminutes_check: CHECK (((residenceminutes >= 5) AND (residenceminutes <= 240)))
constraint waitlist waitlist_status_check: CHECK ((status = ANY (ARRAY['waiting'::text, 'offered'::text, 'accepted'::text, 'passed'::text, 'left'::text, 'closed'::text])))
constraint waitlist waitlist_storeid_fkey: FOREIGN KEY (storeid) REFERENCES store(id) ON DELETE CASCADE
constraint waitlist waitlist_userid_fkey: FOREIGN KEY (userid) REFERENCES "user"(id) ON DELETE CASCADE
constraint walkincontact walkincontact_language_check: CHECK ((length(language) <= 8))
constraint walkincontact walkincontact_pkey: PRIMARY KEY (reservationid)
constraint walkincontact walkincontact_reservationid_fkey: FOREIGN KEY (reservationid) REFERENCES reservation(id) ON DELETE CASCADE
index datakeycheck_pkey: CREATE UNIQUE INDEX datakeycheck_pkey ON datakeycheck USING btree (id)
index department_on_storeid: CREATE INDEX department_on_storeid ON department USING btree (storeid)
index department_pkey: CREATE UNIQUE INDEX department_pkey ON department USING btree (id)
index department_storeid_name_key: CREATE UNIQUE INDEX department_storeid_name_key ON department USING btree (storeid, name)
index dooraction_at: CREATE INDEX dooraction_at ON dooraction USING btree (at)
index dooraction_kiosk: CREATE INDEX dooraction_kiosk ON dooraction USING btree (kioskid, at)
index dooraction_on_reservationid: CREATE INDEX dooraction_on_reservationid ON dooraction USING btree (reservationid)
index dooraction_on_userid: CREATE INDEX dooraction_on_userid ON dooraction USING btree (userid)
index dooraction_pkey: CREATE UNIQUE INDEX dooraction_pkey ON dooraction USING btree (id)
index dooraction_store: CREATE INDEX dooraction_store ON dooraction USING btree (storeid, at)
index doorlease_pkey: CREATE UNIQUE INDEX doorlease_pkey ON doorlease USING btree (kioskid)
index doorlease_store: CREATE INDEX doorlease_store ON doorlease USING btree (storeid)
index doorpin_pkey: CREATE UNIQUE INDEX doorpin_pkey ON doorpin USING btree (userid)
index doorstaff_pkey: CREATE UNIQUE INDEX doorstaff_pkey ON doorstaff USING btree (userid, storeid)
index doorstaff_store: CREATE INDEX doorstaff_store ON doorstaff USING btree (storeid)
index emailtoken_on_userid: CREATE INDEX emailtoken_on_userid ON emailtoken USING btree (userid)
index emailtoken_pkey: CREATE UNIQUE INDEX emailtoken_pkey ON emailtoken USING btree (tokenhash)
index formreply_on_at: CREATE INDEX formreply_on_at ON formreply USING btree (at)
index formreply_pkey: CREATE UNIQUE INDEX formreply_pkey ON formreply USING btree (key)
index groupmanager_group: CREATE INDEX groupmanager_group ON groupmanager USING btree (groupid)
index groupmanager_pkey: CREATE UNIQUE INDEX groupmanager_pkey ON groupmanager USING btree (userid, groupid)
index kioskcontact_pkey: CREATE UNIQUE INDEX kioskcontact_pkey ON kioskcontact USING btree (kioskid)
index kiosk_keyhash_key: CREATE UNIQUE INDEX kiosk_keyhash_key ON kiosk USING btree (keyhash)
index kiosk_on_storeid: CREATE INDEX kiosk_on_storeid ON kiosk USING btree (storeid)
index kiosk_pkey: CREATE UNIQUE INDEX kiosk_pkey ON kiosk USING btree (id)
index mailpace_mark: CREATE INDEX mailpace_mark ON mailpace USING btree (mark)
index mailpace_pkey: CREATE UNIQUE INDEX mailpace_pkey ON mailpace USING btree (client)
index maintenancenotice_pending: CREATE INDEX maintenancenotice_pending ON maintenancenotice USING btree (id) WHERE (dispatchedat IS NULL)
index maintenancenotice_pkey: CREATE UNIQUE INDEX maintenancenotice_pkey ON maintenancenotice USING btree (id)
index maintenancenotice_reservation: CREATE INDEX maintenancenotice_reservation ON maintenancenotice USING btree (reservationid)
index maintenancenotice_windowid_reservationid_kind_key: CREATE UNIQUE INDEX maintenancenotice_windowid_reservationid_kind_key ON maintenancenotice USING btree (windowid, reservationid, kind)
index maintenancewindow_ends: CREATE INDEX maintenancewindow_ends ON maintenancewindow USING btree (endsat) WHERE (cancelledat IS NULL)
index maintenancewindow_pkey: CREATE UNIQUE INDEX maintenancewindow_pkey ON maintenancewindow USING btree (id)
index managedstore_on_storeid: CREATE INDEX managedstore_on_storeid ON managedstore USING btree (storeid)
index managedstore_pkey: CREATE UNIQUE INDEX managedstore_pkey ON managedstore USING btree (userid, storeid)
index notice_pending: CREATE INDEX notice_pending ON notice USING btree (id) WHERE (dispatchedat IS NULL)
index notice_pkey: CREATE UNIQUE INDEX notice_pkey ON notice USING btree (id)
index notice_reservationid_kind_key: CREATE UNIQUE INDEX notice_reservationid_kind_key ON notice USING btree (reservationid, kind)
index openinginterval_pkey: CREATE UNIQUE INDEX openinginterval_pkey ON openinginterval USING btree (storeid, weekday, opens)
index outboxmessage_due: CREATE INDEX outboxmessage_due ON outboxmessage USING btree (priority, id) WHERE (sentat IS NULL)
index outboxmessage_pending: CREATE INDEX outboxmessage_pending ON outboxmessage USING btree (nextattemptat) WHERE (sentat IS NULL)
index outboxmessage_pkey: CREATE UNIQUE INDEX outboxmessage_pkey ON outboxmessage USING btree (id)
index outboxmessage_recipientkey: CREATE INDEX outboxmessage_recipientkey ON outboxmessage USING btree (recipientkey, createdat)
index outboxmessage_requestedby: CREATE INDEX outboxmessage_requestedby ON outboxmessage USING btree (createdat, requestedby) WHERE (requestedby IS NOT NULL)
index outboxmessage_unsent_reservation: CREATE INDEX outboxmessage_unsent_reservation ON outboxmessage USING btree (reservationid) WHERE ((sentat IS NULL) AND (reservationid IS NOT NULL))
index pushmessage_on_pushsubscriptionid: CREATE INDEX pushmessage_on_pushsubscriptionid ON pushmessage USING btree (pushsubscriptionid)
index pushmessage_pending: CREATE INDEX pushmessage_pending ON pushmessage USING btree (nextattemptat) WHERE (sentat IS NULL)
index pushmessage_pkey: CREATE UNIQUE INDEX pushmessage_pkey ON pushmessage USING btree (id)
index pushsubscription_endpoint_key: CREATE UNIQUE INDEX pushsubscription_endpoint_key ON pushsubscription USING btree (endpoint)
index pushsubscription_pkey: CREATE UNIQUE INDEX pushsubscription_pkey ON pushsubscription USING btree (id)
index pushsubscription_user: CREATE INDEX pushsubscription_user ON pushsubscription USING btree (userid, id)
index reservationdepartment_on_departmentid: CREATE INDEX reservationdepartment_on_departmentid ON reservationdepartment USING btree (departmentid)
index reservationdepartment_pkey: CREATE UNIQUE INDEX reservationdepartment_pkey ON reservationdepartment USING btree (reservationid, departmentid)
index reservation_booked: CREATE INDEX reservation_booked ON reservation USING btree (slotstart, storeid) WHERE (status = 'booked'::text)
index reservation_bookedbystore: CREATE INDEX reservation_bookedbystore ON reservation USING btree (storeid, slotstart) INCLUDE (people) WHERE (status = 'booked'::text)
index reservation_entered: CREATE INDEX reservation_entered ON reservation USING btree (storeid, enteredat) WHERE (enteredat IS NOT NULL)
index reservation_inside: CREATE INDEX reservation_inside ON reservation USING btree (storeid) INCLUDE (people) WHERE (status = 'inside'::text)
index reservation_live: CREATE INDEX reservation_live ON reservation USING btree (storeid, id) WHERE (status = ANY (ARRAY['waiting'::text, 'called'::text, 'inside'::text]))
index reservation_oneactive: CREATE UNIQUE INDEX reservation_oneactive ON reservation USING btree (userid) WHERE (status = ANY (ARRAY['waiting'::text, 'called'::text, 'booked'::text, 'inside'::text]))
index reservation_pkey: CREATE UNIQUE INDEX reservation_pkey ON reservation USING btree (id)
index reservation_request: CREATE INDEX reservation_request ON reservation USING btree (storeid, requestkey) WHERE (requestkey IS NOT NULL)
index reservation_storeid_day_number_key: CREATE UNIQUE INDEX reservation_storeid_day_number_key ON reservation USING btree (storeid, day, number)
index reservation_unanswered: CREATE INDEX reservation_unanswered ON reservation USING btree (slotstart) WHERE ((status = 'booked'::text) AND (confirmedat IS NULL))
index reservation_user: CREATE INDEX reservation_user ON reservation USING btree (userid, storeid)
index scanreceipt_pkey: CREATE UNIQUE INDEX scanreceipt_pkey ON scanreceipt USING btree (kioskid, scanid)
index scanreceipt_received: CREATE INDEX scanreceipt_received ON scanreceipt USING btree (receivedat)
index schemamigration_pkey: CREATE UNIQUE INDEX schemamigration_pkey ON schemamigration USING btree (version)
index session_on_userid: CREATE INDEX session_on_userid ON session USING btree (userid)
index session_pkey: CREATE UNIQUE INDEX session_pkey ON session USING btree (idhash)
index signinfailure_account: CREATE INDEX signinfailure_account ON signinfailure USING btree (account, at)
index signinfailure_client: CREATE INDEX signinfailure_client ON signinfailure USING btree (clientaddress, at)
index signinfailure_pkey: CREATE UNIQUE INDEX signinfailure_pkey ON signinfailure USING btree (id)
index specialhours_pkey: CREATE UNIQUE INDEX specialhours_pkey ON specialhours USING btree (storeid, day, opens)
index staffpin_pkey: CREATE UNIQUE INDEX staffpin_pkey ON staffpin USING btree (storeid)
index storechange_at: CREATE INDEX storechange_at ON storechange USING btree (at)
index storechange_on_userid: CREATE INDEX storechange_on_userid ON storechange USING btree (userid)
index storechange_pkey: CREATE UNIQUE INDEX storechange_pkey ON storechange USING btree (id)
index storechange_store: CREATE INDEX storechange_store ON storechange USING btree (storeid, at)
index storeclosure_pkey: CREATE UNIQUE INDEX storeclosure_pkey ON storeclosure USING btree (storeid, day)
index storedepartmenthour_on_departmentid: CREATE INDEX storedepartmenthour_on_departmentid ON storedepartmenthour USING btree (departmentid)
index storedepartmenthour_pkey: CREATE UNIQUE INDEX storedepartmenthour_pkey ON storedepartmenthour USING btree (storeid, departmentid, hour)
index storegroupmember_group: CREATE INDEX storegroupmember_group ON storegroupmember USING btree (groupid)
index storegroupmember_pkey: CREATE UNIQUE INDEX storegroupmember_pkey ON storegroupmember USING btree (storeid)
index storegroup_name_key: CREATE UNIQUE INDEX storegroup_name_key ON storegroup USING btree (name)
index storegroup_pkey: CREATE UNIQUE INDEX storegroup_pkey ON storegroup USING btree (id)
index storehour_pkey: CREATE UNIQUE INDEX storehour_pkey ON storehour USING btree (storeid, hour)
index storeload_pkey: CREATE UNIQUE INDEX storeload_pkey ON storeload USING btree (storeid)
index storeretirement_pkey: CREATE UNIQUE INDEX storeretirement_pkey ON storeretirement USING btree (storeid)
index storesigningkey_pkey: CREATE UNIQUE INDEX storesigningkey_pkey ON storesigningkey USING btree (storeid, keyid)
index store_pkey: CREATE UNIQUE INDEX store_pkey ON store USING btree (id)
index storeversion_pkey: CREATE UNIQUE INDEX storeversion_pkey ON storeversion USING btree (storeid)
index supportaction_at: CREATE INDEX supportaction_at ON supportaction USING btree (at)
index supportaction_customer: CREATE INDEX supportaction_customer ON supportaction USING btree (customerid)
index supportaction_pkey: CREATE UNIQUE INDEX supportaction_pkey ON supportaction USING btree (id)
index supportaction_reservation: CREATE INDEX supportaction_reservation ON supportaction USING btree (reservationid)
index supportaction_staff: CREATE INDEX supportaction_staff ON supportaction USING btree (staffid)
index ticketblock_kiosk_day: CREATE UNIQUE INDEX ticketblock_kiosk_day ON ticketblock USING btree (kioskid, day)
index ticketblock_pkey: CREATE UNIQUE INDEX ticketblock_pkey ON ticketblock USING btree (id)
index ticketblock_store_day: CREATE INDEX ticketblock_store_day ON ticketblock USING btree (storeid, day)
index user_emailkey: CREATE UNIQUE INDEX user_emailkey ON "user" USING btree (emailkey)
index user_loyal: CREATE INDEX user_loyal ON "user" USING btree (id) WHERE loyaltyoptin
index user_pkey: CREATE UNIQUE INDEX user_pkey ON "user" USING btree (id)
index waitlistnotice_pending: CREATE INDEX waitlistnotice_pending ON waitlistnotice USING btree (id) WHERE (dispatchedat IS NULL)
index waitlistnotice_pkey: CREATE UNIQUE INDEX waitlistnotice_pkey ON waitlistnotice USING btree (id)
index waitlistnotice_waitlistid_kind_key: CREATE UNIQUE INDEX waitlistnotice_waitlistid_kind_key ON waitlistnotice USING btree (waitlistid, kind)
index waitlist_oneopen: CREATE UNIQUE INDEX waitlist_oneopen ON waitlist USING btree (userid) WHERE (status = ANY (ARRAY['waiting'::text, 'offered'::text]))
index waitlist_open: CREATE INDEX waitlist_open ON waitlist USING btree (storeid, slotstart, id) WHERE (status = ANY (ARRAY['waiting'::text, 'offered'::text]))
index waitlist_pkey: CREATE UNIQUE INDEX waitlist_pkey ON waitlist USING btree (id)
index waitlist_user: CREATE INDEX waitlist_user ON waitlist USING btree (userid, id)
index walkincontact_pkey: CREATE UNIQUE INDEX walkincontact_pkey ON walkincontact USING btree (reservationid)
trigger reservation_capacity: CREATE TRIGGER reservation_capacity BEFORE INSERT OR UPDATE OF status ON reservation FOR EACH ROW WHEN ((new.status = ANY (ARRAY['inside'::text, 'booked'::text]))) EXECUTE FUNCTION reservation_capacity()
trigger store_created: CREATE TRIGGER store_created AFTER INSERT ON store FOR EACH ROW EXECUTE FUNCTION store_created()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE OF id, storeid, status, people, residenceminutes, calledat, enteredat, slotstart, walkin, number, day, travelmode, travelmetres, leftat, pace, priority, queueposition, createdat ON reservation FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE ON department FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE ON openinginterval FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE ON specialhours FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE ON storeclosure FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE ON storeretirement FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
trigger store_version: CREATE TRIGGER store_version AFTER INSERT OR UPDATE ON store FOR EACH ROW EXECUTE FUNCTION store_version_of_store()
trigger store_version: CREATE TRIGGER store_version AFTER UPDATE ON storeload FOR EACH ROW EXECUTE FUNCTION store_version_of_row()
function reservation_capacity: CREATE OR REPLACE FUNCTION reservation_capacity()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    limits store%ROWTYPE;
BEGIN
    IF NEW.status = 'inside' AND (TG_OP = 'INSERT' OR OLD.status <> 'inside') THEN
        SELECT * INTO limits FROM store WHERE id = NEW.storeId FOR UPDATE;
        IF NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                         WHERE storeId = NEW.storeId AND status = 'inside' AND id <> NEW.id)
           > limits.capacity THEN
            RAISE EXCEPTION 'store full' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    IF TG_OP = 'INSERT' AND NEW.kind = 'booking' AND NEW.status = 'booked' THEN
        SELECT * INTO limits FROM store WHERE id = NEW.storeId FOR UPDATE;
        IF NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                         WHERE storeId = NEW.storeId AND status = 'booked' AND slotStart >= NEW.slotStart
                           AND slotStart < NEW.slotStart + make_interval(mins => limits.slotMinutes::int))
           > limits.slotCapacity THEN
            RAISE EXCEPTION 'slot full' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $function$

function store_created: CREATE OR REPLACE FUNCTION store_created()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    INSERT INTO storeLoad (storeId) VALUES (NEW.id);
    INSERT INTO storeSigningKey (storeId, keyId, createdAt) VALUES (NEW.id, 1, now());
    RETURN NEW;
END $function$

function store_version_of_row: CREATE OR REPLACE FUNCTION store_version_of_row()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    target bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.storeId ELSE NEW.storeId END;
BEGIN
    UPDATE storeVersion SET version = version + 1, changedBy = pg_current_xact_id()
    WHERE storeId = target AND changedBy IS DISTINCT FROM pg_current_xact_id();
    RETURN NULL;
END $function$

function store_version_of_store: CREATE OR REPLACE FUNCTION store_version_of_store()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO storeVersion (storeId) VALUES (NEW.id);
    ELSE
        UPDATE storeVersion SET version = version + 1, changedBy = pg_current_xact_id()
        WHERE storeId = NEW.id AND changedBy IS DISTINCT FROM pg_current_xact_id();
    END IF;
    RETURN NULL;
END $function$

