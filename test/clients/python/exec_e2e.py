# The exec tests of the official Python client's e2e suite, vendored minimally from
# kubernetes-client/python tag v22.6.0, kubernetes/e2e_test/test_client.py (test_pod_apis, test_exit_code;
# Copyright The Kubernetes Authors, Apache License 2.0). Changes: configuration from $KUBECONFIG instead of
# e2e_test/base.py, the wait for the default service account dropped, each test in its own namespace-free
# form as upstream. Run by test/clients/python-exec.test.ts against a server with --simulated-exec=host.
import json
import time
import unittest
import uuid

from kubernetes.client import api_client
from kubernetes.client.api import core_v1_api
from kubernetes.client.configuration import Configuration
from kubernetes.config import kube_config
from kubernetes.stream import stream
from kubernetes.stream.ws_client import ERROR_CHANNEL


def short_uuid():
    return str(uuid.uuid4())[-12:]


def manifest_with_command(name, command):
    return {'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': name},
            'spec': {'containers': [{'image': 'busybox', 'name': 'sleep', 'args': ['/bin/sh', '-c', command]}]}}


def configuration():
    config = Configuration()
    kube_config.load_kube_config(client_configuration=config)
    config.assert_hostname = False
    return config


class TestClient(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.config = configuration()

    def test_pod_apis(self):
        client = api_client.ApiClient(configuration=self.config)
        api = core_v1_api.CoreV1Api(client)

        name = 'busybox-test-' + short_uuid()
        pod_manifest = manifest_with_command(name, "while true;do date;sleep 5; done")
        resp = api.create_namespaced_pod(body=pod_manifest, namespace='default')
        self.assertEqual(name, resp.metadata.name)
        self.assertTrue(resp.status.phase)

        while True:
            resp = api.read_namespaced_pod(name=name, namespace='default')
            self.assertEqual(name, resp.metadata.name)
            self.assertTrue(resp.status.phase)
            if resp.status.phase != 'Pending':
                break
            time.sleep(1)

        exec_command = ['/bin/sh', '-c', 'for i in $(seq 1 3); do date; done']
        resp = stream(api.connect_get_namespaced_pod_exec, name, 'default', command=exec_command,
                      stderr=False, stdin=False, stdout=True, tty=False)
        print('EXEC response : %s' % resp)
        self.assertEqual(3, len(resp.splitlines()))

        exec_command = 'uptime'
        resp = stream(api.connect_post_namespaced_pod_exec, name, 'default', command=exec_command,
                      stderr=False, stdin=False, stdout=True, tty=False)
        print('EXEC response : %s' % resp)
        self.assertEqual(1, len(resp.splitlines()))

        resp = stream(api.connect_post_namespaced_pod_exec, name, 'default', command='/bin/sh',
                      stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
        resp.write_stdin("echo test string 1\n")
        line = resp.readline_stdout(timeout=5)
        self.assertFalse(resp.peek_stderr())
        self.assertEqual("test string 1", line)
        resp.write_stdin("echo test string 2 >&2\n")
        line = resp.readline_stderr(timeout=5)
        self.assertFalse(resp.peek_stdout())
        self.assertEqual("test string 2", line)
        resp.write_stdin("exit\n")
        resp.update(timeout=5)
        while True:
            line = resp.read_channel(ERROR_CHANNEL)
            if line != '':
                break
            time.sleep(1)
        status = json.loads(line)
        self.assertEqual(status['status'], 'Success')
        resp.update(timeout=5)
        self.assertFalse(resp.is_open())

        number_of_pods = len(api.list_pod_for_all_namespaces().items)
        self.assertTrue(number_of_pods > 0)

        resp = api.delete_namespaced_pod(name=name, body={}, namespace='default')

    def test_exit_code(self):
        client = api_client.ApiClient(configuration=self.config)
        api = core_v1_api.CoreV1Api(client)

        name = 'busybox-test-' + short_uuid()
        pod_manifest = manifest_with_command(name, "while true;do date;sleep 5; done")
        resp = api.create_namespaced_pod(body=pod_manifest, namespace='default')
        self.assertEqual(name, resp.metadata.name)
        self.assertTrue(resp.status.phase)

        while True:
            resp = api.read_namespaced_pod(name=name, namespace='default')
            self.assertEqual(name, resp.metadata.name)
            self.assertTrue(resp.status.phase)
            if resp.status.phase == 'Running':
                break
            time.sleep(1)

        commands_expected_values = (
            (["false", 1]),
            (["/bin/sh", "-c", "sleep 1; exit 3"], 3),
            (["true", 0]),
            (["/bin/sh", "-c", "ls /"], 0)
        )
        for command, value in commands_expected_values:
            client = stream(api.connect_get_namespaced_pod_exec, name, 'default', command=command,
                            stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
            self.assertIsNone(client.returncode)
            client.run_forever(timeout=10)
            self.assertEqual(client.returncode, value)
            self.assertEqual(client.returncode, value)  # check idempotence

        resp = api.delete_namespaced_pod(name=name, body={}, namespace='default')


if __name__ == '__main__':
    unittest.main(verbosity=2)
