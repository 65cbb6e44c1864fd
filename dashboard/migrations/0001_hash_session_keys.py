"""Sessions stored before cluster.auth.sessions kept their keys as they are: store a hash instead, so
the browsers holding them stay signed in and the database holds no usable key."""

from django.db import migrations

from cluster.auth.sessions import is_stored_hash, stored_key


def hash_keys(apps, schema_editor):
    Session = apps.get_model("sessions", "Session")
    for session in Session.objects.all().iterator():
        if not is_stored_hash(session.session_key):
            Session.objects.create(
                session_key=stored_key(session.session_key),
                session_data=session.session_data,
                expire_date=session.expire_date,
            )
            session.delete()


class Migration(migrations.Migration):
    dependencies = [("sessions", "0001_initial")]

    operations = [migrations.RunPython(hash_keys, migrations.RunPython.noop)]
